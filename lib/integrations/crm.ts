/** The CRM (Close) as onboarding needs it. */
export interface LeadDetails {
  companyName: string;
  website?: string;
  description?: string;
  contact: { name?: string; email: string; phone?: string };
}

export interface Crm {
  /** The lead whose contact has this e-mail. */
  findLeadByEmail(email: string): Promise<string | undefined>;
  /** The lead whose website is on this domain. */
  findLeadByDomain(domain: string): Promise<string | undefined>;
  createLead(details: LeadDetails): Promise<string>;
  /** Updates the lead's company fields and makes sure the contact is on it. */
  updateLead(leadId: string, details: LeadDetails): Promise<void>;
}
