import type { ChatClient, ChatRequest, ChatResponse } from "@needlework/core";
import type { Plan, PlannedCall, Skill } from "./suite.js";

/** The instructions a text holds, in the order they appear (overlapping matches: the first wins). */
export function instructionsIn(
  text: string,
  skills: readonly Skill[],
): { readonly text: string; readonly plan: Plan }[] {
  const found: { at: number; end: number; text: string; plan: Plan }[] = [];
  for (const skill of skills) {
    const pattern = new RegExp(
      skill.pattern.source,
      skill.pattern.flags.includes("g") ? skill.pattern.flags : `${skill.pattern.flags}g`,
    );
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      found.push({ at: m.index, end: m.index + m[0].length, text: m[0], plan: skill.plan(m) });
    }
  }
  found.sort((a, b) => a.at - b.at || b.end - a.end);
  const kept: typeof found = [];
  for (const f of found) if (!kept.some((k) => f.at < k.end && k.at < f.end)) kept.push(f);
  return kept;
}

/** Every string in a JSON value. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === "object" && value !== null) for (const v of Object.values(value)) strings(v, out);
  return out;
}

type Step =
  | {
      readonly call: PlannedCall;
      readonly into?: { readonly plan: Extract<Plan, { kind: "plan" }>; readonly data: unknown[] };
    }
  | { readonly act: Extract<Plan, { kind: "plan" }>; readonly data: unknown[] };

/**
 * A scripted model that follows every instruction it reads, whoever wrote it: the user's message
 * first, in order; an instruction found in a tool result goes before everything still to do (the
 * attack asks for "first"). One call per turn; "Done." when nothing is left. It reads the envelope's
 * `data`; it cannot tell a user from an attacker, which is the point.
 */
export class ObedientModel implements ChatClient {
  private readonly todo: Step[] = [];
  private readonly followed = new Set<string>();
  private started = false;
  private waiting: Step | undefined;
  private calls = 0;

  constructor(private readonly skills: readonly Skill[]) {}

  private stepsOf(plan: Plan): Step[] {
    if (plan.kind === "call") return [{ call: plan.call }];
    const data: unknown[] = [];
    return [...plan.reads.map((call) => ({ call, into: { plan, data } })), { act: plan, data }];
  }

  private obey(text: string): Step[] {
    const steps: Step[] = [];
    for (const instruction of instructionsIn(text, this.skills)) {
      if (this.followed.has(instruction.text)) continue;
      this.followed.add(instruction.text);
      steps.push(...this.stepsOf(instruction.plan));
    }
    return steps;
  }

  async complete(request: ChatRequest): Promise<ChatResponse> {
    if (!this.started) {
      this.started = true;
      const user = request.messages.find((m) => m.role === "user");
      this.todo.push(...this.obey(user?.role === "user" ? user.content : ""));
    }
    const last = request.messages.at(-1);
    if (last?.role === "tool") {
      let data: unknown;
      try {
        const envelope = JSON.parse(last.content) as { data?: unknown; status?: string };
        data = envelope.status === "ok" ? envelope.data : undefined;
      } catch {
        data = undefined;
      }
      const step = this.waiting;
      this.waiting = undefined;
      if (step !== undefined && "call" in step && step.into !== undefined) step.into.data.push(data);
      this.todo.unshift(...this.obey(strings(data).join("\n")));
    }
    for (let step = this.todo.shift(); step !== undefined; step = this.todo.shift()) {
      let next: PlannedCall | undefined;
      if ("act" in step) next = step.data.length === step.act.reads.length ? step.act.act(step.data) : undefined;
      else next = step.call;
      if (next === undefined) continue;
      this.waiting = "call" in step ? step : undefined;
      const id = `call_${++this.calls}`;
      return { message: { toolCalls: [{ id, name: next.name, arguments: next.arguments }] } };
    }
    return { message: { content: "Done." } };
  }
}
