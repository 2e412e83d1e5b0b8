// The mcp-binary example, run as a reader runs it: an image from an MCP server stored as an artifact.
import { expect, it } from "vitest";
import { runMcpBinaryExample } from "./main.js";

it("stores the image as an artifact; the model reads its description and never its base64", async () => {
  const printed: string[] = [];
  await runMcpBinaryExample((line) => printed.push(line));
  expect(printed[0]).toMatch(
    /^model read: "Revenue by month, Q3\." and \{"type":"image","mimeType":"image\/png","bytes":4104,"artifact":\{"id":"[0-9a-f]{12}…","bytes":4104\}\}$/,
  );
  expect(printed.slice(1)).toEqual([
    "base64 in the model's context: false",
    "read_artifact: ARTIFACT_BINARY (Artifact '…' is binary content (image/png, about 4104 bytes): it cannot be read as text.)",
    "stored: image/png;base64, 4104 bytes, the same bytes: true",
    "run: completed_with_failures",
  ]);
});
