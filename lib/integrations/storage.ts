/** File storage (Dropbox) as onboarding, offboarding and erasure need it. Paths are absolute, e.g. /Clients/acme/01 Admin. */
export interface Storage {
  /** Creates each folder that does not exist yet (parents too); existing folders are fine. */
  ensureFolders(paths: string[]): Promise<void>;
  /** The folder's shared link: the existing one, or a new one. */
  sharedLink(path: string): Promise<string>;
  /** Writes a file, replacing any earlier version. */
  writeFile(path: string, content: string): Promise<{ path: string; size: number }>;
  /** Revokes the shared link at this URL; a link already revoked or gone is fine. */
  revokeSharedLink(url: string): Promise<void>;
  /** Moves a folder (and all in it) to another path; already moved (nothing at `from`, a folder at `to`) is fine. */
  moveFolder(from: string, to: string): Promise<void>;
  /** Deletes a folder and all in it; one that is not there is fine. */
  deleteFolder(path: string): Promise<void>;
}
