// Calls every tool of examples/server through a client generated from the
// server's own OpenAPI document: openapi-typescript writes ./schema.d.ts
// from /api/openapi.json, and tsc checks every call below against it (a
// path, an argument or a result field the document does not describe is a
// compile error). Run with the REST API's base URL and the demo token; it
// prints one JSON line per call: {"tool", "status", "text"}.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

declare const process: { argv: string[] };

const [baseUrl, token] = process.argv.slice(2);
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

type Result = components["schemas"]["CallToolResult"];

// firstText is the text of a result's first text block.
function firstText(r: Result | undefined): string {
  for (const block of r?.content ?? []) {
    if (block.type === "text") {
      return block.text;
    }
  }
  return "";
}

function report(tool: string, response: Response, text: string): void {
  console.log(JSON.stringify({ tool, status: response.status, text }));
}

const echo = await client.POST("/tools/echo/call", { body: { text: "hello" } });
report("echo", echo.response, firstText(echo.data));

const upper = await client.POST("/tools/text_upper/call", { body: { text: "quiet" } });
report("text_upper", upper.response, firstText(upper.data));

const stats = await client.POST("/tools/stats/call", { body: { numbers: [1, 2, 3] } });
report("stats", stats.response, firstText(stats.data));

const swatch = await client.POST("/tools/image_swatch/call");
const image = swatch.data?.content.find((b) => b.type === "image");
report("image_swatch", swatch.response, image?.type === "image" ? image.mimeType : "");

const divide = await client.POST("/tools/divide/call", { body: { a: 1, b: 0 } });
// Dividing by zero is the tool's own error: 500 with an isError result.
const divideError = divide.error && "content" in divide.error ? firstText(divide.error) : "";
report("divide", divide.response, divideError);

const fail = await client.POST("/tools/fail/call");
report("fail", fail.response, fail.error && "content" in fail.error ? firstText(fail.error) : "");

const sleep = await client.POST("/tools/sleep/call", { body: { seconds: 0 } });
report("sleep", sleep.response, firstText(sleep.data));

const whoami = await client.POST("/tools/whoami/call");
report("whoami", whoami.response, firstText(whoami.data));

const add = await client.POST("/tools/math_add/call", { body: { numbers: [40, 2] } });
// math_add has an output schema: structuredContent is typed by it.
const sum: number | undefined = add.data?.structuredContent?.sum;
report("math_add", add.response, String(sum));

const countdown = await client.POST("/tools/countdown/call", { body: { steps: 1 } });
report("countdown", countdown.response, firstText(countdown.data));

const greet = await client.POST("/tools/greet/call", { body: { name: "Ada" } });
report("greet", greet.response, firstText(greet.data));

// A refused call's body is described too: 422 lists the failures.
const bad = await client.POST("/tools/echo/call", { body: {} as { text: string } });
const invalid = bad.response.status === 422 ? (bad.error as components["schemas"]["InvalidArgumentsResult"]) : undefined;
report("echo (no text)", bad.response, (invalid?.structuredContent.errors ?? []).map((f) => `${f.path} ${f.keyword}`).join(","));
