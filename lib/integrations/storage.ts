/** File storage (Dropbox) as onboarding needs it. Paths are absolute, e.g. /Clients/acme/01 Admin. */
export interface Storage {
  /** Creates each folder that does not exist yet (parents too); existing folders are fine. */
  ensureFolders(paths: string[]): Promise<void>;
  /** The folder's shared link: the existing one, or a new one. */
  sharedLink(path: string): Promise<string>;
  /** Writes a file, replacing any earlier version. */
  writeFile(path: string, content: string): Promise<{ path: string; size: number }>;
}
