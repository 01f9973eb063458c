/** Team chat (Slack). */
export interface ChatMessage {
  /** The plain-text fallback, always present. */
  text: string;
  blocks?: unknown[];
}

export interface Chat {
  post(message: ChatMessage): Promise<{ ts?: string }>;
}
