import { request } from "@octokit/request";
import { CLIENT_TIMEOUT_MS, describeClient } from "./support.js";

// Octokit throws RequestError (name HttpError) with `status` and `response.headers`; a failed
// fetch is a RequestError with status 500 and no response, the real failure on its cause.
const createIssue = (url: string, signal: AbortSignal) =>
  request("POST /repos/{owner}/{repo}/issues", {
    baseUrl: url,
    owner: "needlework",
    repo: "crm",
    title: "Sync failed",
    request: { signal },
  });

describeClient({
  name: "Octokit",
  send: createIssue,
  sendWithTimeout: (url, signal) => createIssue(url, AbortSignal.any([signal, AbortSignal.timeout(CLIENT_TIMEOUT_MS)])),
});
