import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

/** What the fixture server reports to the test: calls per tool, cancelled request ids, hooks. */
export interface SdkServerEvents {
  readonly calls: Map<string, number>;
  readonly cancelled: string[];
  waiting?: () => void;
  onCancelled?: () => void;
  /** The server made last (over HTTP, the one of the newest session). */
  server?: McpServer;
}

export function createSdkServer(events?: SdkServerEvents, options?: { readonly stdio?: boolean }): McpServer;

export interface SdkHttpServer {
  readonly url: string;
  readonly sessions: Map<string, unknown>;
  expire(sessionId: string): boolean;
  close(): Promise<void>;
}

export function startSdkHttpServer(events: SdkServerEvents): Promise<SdkHttpServer>;
