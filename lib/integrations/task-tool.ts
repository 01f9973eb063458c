/** The task tool (ClickUp) as onboarding, booking and offboarding need it. */
export interface TaskRef {
  id: string;
  name: string;
  url?: string;
  status?: string;
}

export interface NewTask {
  name: string;
  /** Markdown. */
  description: string;
  tags?: string[];
  /** Unix milliseconds. */
  dueDate?: number;
  /** 1 (urgent) to 4 (low). */
  priority?: 1 | 2 | 3 | 4;
}

export interface TaskPatch {
  name?: string;
  description?: string;
  status?: string;
  dueDate?: number | null;
}

/** A folder or list: `adopted` when it was there already (made earlier, or by a concurrent run), not made by this call. */
export interface Container {
  id: string;
  name: string;
  adopted: boolean;
}

export interface TaskTool {
  /** The folder of this name in the configured space; created when there is none. Names are unique there. */
  ensureFolder(name: string): Promise<Container>;
  /** The list of this name in the folder; created when there is none. */
  ensureList(folderId: string, name: string): Promise<Container>;
  /**
   * The tasks of these names in the list (open or closed), in order; the missing ones are created.
   * One listing for all, none for a list this run has just made (`listIsNew`): it holds nothing yet.
   */
  ensureTasks(listId: string, tasks: NewTask[], options?: { listIsNew?: boolean }): Promise<TaskRef[]>;
  /** Creates a task unconditionally (for items identified elsewhere, e.g. a booking id). */
  createTask(listId: string, task: NewTask): Promise<TaskRef>;
  updateTask(taskId: string, patch: TaskPatch): Promise<TaskRef>;
  /** Archives (archived true) or restores (false) every task in the folder's lists, open or closed; answers how many tasks it changed. */
  setFolderArchived(folderId: string, archived: boolean): Promise<{ tasks: number }>;
}
