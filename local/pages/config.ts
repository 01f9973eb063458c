/** What the page server tells the pages' script: which site it is, and where the API and the other site are. */
export interface PagesConfig {
  site: 'dashboard' | 'portal';
  apiUrl: string;
  dashboardUrl: string;
  portalUrl: string;
}
