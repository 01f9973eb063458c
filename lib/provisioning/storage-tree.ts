// The layout of a client's storage folder: onboarding makes it, offboarding
// archives it, and the crawler writes the site's content into it.

/** The ten folders every client folder holds. */
export const STORAGE_FOLDERS = [
  '01 Admin and Contracts',
  '02 Brand Assets',
  '03 Content',
  '04 Website',
  '05 SEO',
  '06 Analytics and Reports',
  '07 Social Media',
  '08 Meetings and Notes',
  '09 Deliverables',
  '10 Archive',
] as const;
