// Drives mcp-toolbox's JavaScript SDK (@toolbox-sdk/core) against a server,
// as its users' code does, and prints what each step gave as one JSON
// object on stdout. Run by cmd/toolexec's TestToolboxSDK.
//
// Usage: node client.mjs URL PROTOCOL TOKEN
//   PROTOCOL: "" for the SDK's default, else one of its Protocol values.
import { ToolboxClient } from '@toolbox-sdk/core';

const [url, protocol, token] = process.argv.slice(2);
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const client = protocol
  ? new ToolboxClient(url, null, headers, protocol)
  : new ToolboxClient(url, null, headers);

const out = {};
async function step(name, fn) {
  try {
    out[name] = { ok: true, value: await fn() };
  } catch (e) {
    out[name] = { ok: false, error: String((e && e.message) || e) };
  }
}
const names = tools => tools.map(t => t.toolName).sort();
const tool = async (set, name) => (await client.loadToolset(set)).find(t => t.toolName === name);

await step('defaultToolset', async () => names(await client.loadToolset()));
await step('namedToolset', async () => names(await client.loadToolset('hotels')));
await step('unknownToolset', async () => names(await client.loadToolset('no-such-toolset')));
await step('invokeFromToolset', async () => (await tool('hotels', 'search-hotels-by-name'))({ name: 'Hilton' }));
await step('invokeWithDefault', async () => (await tool('hotels', 'search-hotels-by-location'))({ location: 'Basel' }));
await step('loadTool', async () => (await client.loadTool('get-hotel'))({ id: 3 }));
await step('noRows', async () => (await client.loadTool('get-hotel'))({ id: 999 }));
await step('wrongType', async () => (await client.loadTool('get-hotel'))({ id: 'three' }));
await step('failingCall', async () => (await client.loadTool('parse-json'))({ doc: 'not json' }));
await step('unknownTool', async () => client.loadTool('no-such-tool'));
out.protocolVersion = client.protocolVersion;
process.stdout.write(JSON.stringify(out) + '\n');
