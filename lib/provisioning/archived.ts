// What an offboarding archived at a vendor, as the ledger keeps it beside
// what onboarding made: onboarding the account again finds it and restores
// it (marking it `restored`), rather than making it anew.

/** `clickup#archived`: the folder whose tasks were archived. */
export type ArchivedFolder = {
  folderId: string;
  archivedAt: string;
  runId: string;
  restored?: boolean;
};

/** `dropbox#archived`: where the client's folder was moved, from where. */
export type ArchivedTree = {
  from: string;
  to: string;
  archivedAt: string;
  runId: string;
  restored?: boolean;
};
