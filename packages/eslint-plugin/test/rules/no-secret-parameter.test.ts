import { describe, expect, it } from "vitest";
import { credentialWord, noSecretParameter } from "../../src/rules/no-secret-parameter.js";
import { javaScript, ruleTester, runsOnJavaScript } from "../rule-tester.js";
import { tools } from "../sources.js";

const input = (fields: string) =>
  tools(`  @AgentFunction({ description: "Calls.", input: z.object({ ${fields} }) })
  call(input: object) { return input; }`);

describe("credentialWord: a credential noun ends the name", () => {
  it.each([
    ["apiKey", "api key"],
    ["stripe_api_key", "api key"],
    ["API-KEY", "api key"],
    ["userPassword", "password"],
    ["password", "password"],
    ["clientSecret", "secret"],
    ["accessToken", "access token"],
    ["token", "token"],
    ["githubToken", "token"],
    ["sessionId", "session id"],
    ["cardPin", "pin"],
  ])("%s is a credential (%s)", (name, word) => {
    expect(credentialWord(name)).toBe(word);
  });

  it.each([
    "tokenLimit",
    "passwordPolicyName",
    "secretName",
    "apiKeyId",
    "pinnedOrderId",
    "maxTokens",
    "pageToken",
    "nextToken",
    "tokenCount",
    "passwordHint",
    "keyboardLayout",
    "author",
    "spinner",
    "credentialType",
  ])("%s is not", (name) => {
    expect(credentialWord(name)).toBeUndefined();
  });
});

ruleTester().run("no-secret-parameter", noSecretParameter, {
  valid: [
    input(
      'pageToken: z.string().nullable().describe("Cursor."), maxTokens: z.number().describe("Budget."), author: z.string().describe("Who.")',
    ),
    input(
      'tokenLimit: z.number().describe("At most."), passwordPolicyName: z.string().describe("Policy."), secretName: z.string().describe("Which secret.")',
    ),
    javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "C.", input: z.object({ tokenLimit: z.number().describe("L.") }) }) c() {} }`),
  ],
  invalid: [
    {
      code: input(
        'orderId: z.string().describe("Order."), stripeApiKey: z.string().describe("The Stripe key."), password: z.string().describe("Account password.")',
      ),
      errors: [
        { messageId: "secret", data: { field: "stripeApiKey", tool: "call", word: "api key" } },
        { messageId: "secret", data: { field: "password", tool: "call", word: "password" } },
      ],
    },
    {
      code: input(
        'repo: z.string().describe("Repo."), auth: z.object({ access_token: z.string().describe("Token.") }).describe("Auth.")',
      ),
      errors: [{ messageId: "secret", data: { field: "auth.access_token", tool: "call", word: "access token" } }],
    },
    {
      code: input(
        'accounts: z.object({ user: z.string().describe("User."), password: z.string().describe("Password.") }).array().describe("Accounts.")',
      ),
      errors: [{ messageId: "secret", data: { field: "accounts[].password", tool: "call", word: "password" } }],
    },
    {
      code: input('clientSecret: z.string().describe("OAuth client secret.")'),
      errors: [{ messageId: "secret", data: { field: "clientSecret", tool: "call", word: "secret" } }],
    },
    {
      code: input('github_token: z.string().describe("Token.")'),
      errors: [{ messageId: "secret", data: { field: "github_token", tool: "call", word: "token" } }],
    },
    {
      ...javaScript(`import { AgentFunction } from "@needlework/core";
import { z } from "zod";
class T { @AgentFunction({ description: "C.", input: z.object({ userPassword: z.string().describe("P.") }) }) c() {} }`),
      errors: [{ messageId: "secret", data: { field: "userPassword", tool: "c", word: "password" } }],
    },
  ],
});

runsOnJavaScript("no-secret-parameter", noSecretParameter);
