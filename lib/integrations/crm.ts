/** The CRM (Close) as onboarding, offboarding and erasure need it. */
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
  /** Sets the lead's status (a lead status id of the organisation). */
  setLeadStatus(leadId: string, statusId: string): Promise<void>;
  /** Deletes every contact of the lead (their names, e-mails and phones); answers how many. */
  deleteContacts(leadId: string): Promise<{ contacts: number }>;
}
