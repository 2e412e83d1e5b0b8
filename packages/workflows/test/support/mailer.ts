// A mailer agent for the stalled-worker tests, loaded both by the tests and by the child processes
// they stop and continue (`node --conditions=@needlework/source --import tsx`, see stalled-worker.ts).
// Its one tool sends an email: it logs the send to MAILER_SENT_LOG, says "tool-started" on stdout,
// then waits until the file MAILER_SIGNAL_FILE exists (how a test holds a worker inside a tool body).
import { appendFileSync, existsSync } from "node:fs";
import {
  AgentFunction,
  AgentFunctionGroup,
  type ChatClient,
  createToolInvoker,
  type ToolContext,
} from "@needlework/core";
import { container } from "tsyringe";
import { z } from "zod";
import { type Agent, createAgent } from "../../src/agent/agent.js";
import type { AgentStore } from "@needlework/durable";

/** Resolves once `ready()` is true, checking every 10 ms (a file another process creates). */
function until(ready: () => boolean, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (ready()) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

@AgentFunctionGroup()
class MailTools {
  @AgentFunction({ description: "Sends an email.", input: z.object({ to: z.string() }) })
  async sendEmail(args: { to: string }, ctx: ToolContext) {
    const log = process.env["MAILER_SENT_LOG"];
    if (log) appendFileSync(log, `${process.pid} ${args.to} ${ctx.idempotencyKey}\n`);
    process.stdout.write("tool-started\n");
    const signalFile = process.env["MAILER_SIGNAL_FILE"];
    if (signalFile) await until(() => existsSync(signalFile), ctx.signal);
    return { sent: args.to };
  }
}

/** A model that asks for one email, then answers `answer`. */
function emailModel(answer: string): ChatClient {
  return {
    async complete({ messages }) {
      if (messages.some((m) => m.role === "tool")) return { message: { content: answer } };
      return {
        message: { toolCalls: [{ id: "call_mail", name: "sendEmail", arguments: { to: "c1@example.com" } }] },
      };
    },
  };
}

/** The mailer agent over `store`; its final answer is `answer`. */
export function mailer(store: AgentStore, answer: string): Agent {
  const invoker = createToolInvoker(container.createChildContainer(), { functions: [MailTools] });
  return createAgent(
    { invoker },
    { name: "mailer", instructions: "Send the email.", chatClient: emailModel(answer), store },
  );
}
