// The signed-in session, kept in this origin's localStorage (the dashboard and
// the portal are two origins, so each signs in on its own).

export interface Session {
  accessToken: string;
  email: string;
  /** Epoch seconds. */
  expiresAt: number;
}

const KEY = 'session';

export function currentSession(): Session | undefined {
  try {
    const session = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Session | null;
    return session && session.expiresAt > Date.now() / 1000 ? session : undefined;
  } catch {
    return undefined;
  }
}

export const saveSession = (session: Session) => localStorage.setItem(KEY, JSON.stringify(session));
export const endSession = () => localStorage.removeItem(KEY);
