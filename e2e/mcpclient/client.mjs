// An MCP client nobody here wrote: the official TypeScript SDK. e2e/mcp_test.go runs it
// against the built watcher binary, over stdio or Streamable HTTP:
//
//   node client.mjs stdio <watcher binary> <config file> <query>
//   node client.mjs http <url of /mcp> <bearer token> <query>
//
// It lists the tools, searches for the query, diffs the first incident found (its latest
// change), reads version 1 of it, reads it as a resource and gets the summary prompt for
// it, then prints what it got as one JSON object. The SDK checks each structured result
// against the tool's output schema.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, secret, query] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: target, args: ["mcp", "-config", secret], stderr: "inherit" });
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
  });
} else {
  console.error("usage: node client.mjs stdio|http TARGET CONFIG|TOKEN QUERY");
  process.exit(2);
}

const client = new Client({ name: "statuswatch-e2e", version: "1.0.0" });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((t) => t.name).sort();
const search = await client.callTool({ name: "search_incidents", arguments: { query } });
const first = search.structuredContent?.incidents?.[0];
const out = { tools, search: search.structuredContent, server: client.getServerVersion() };
if (first) {
  const ref = { source: first.source, id: first.id };
  out.diff = (await client.callTool({ name: "diff_incident", arguments: ref })).structuredContent;
  out.first = (await client.callTool({ name: "get_incident", arguments: { ...ref, version: 1 } })).structuredContent;
  const uri = (await client.listResourceTemplates()).resourceTemplates[0].uriTemplate
    .replace("{source}", encodeURIComponent(ref.source)).replace("{id}", encodeURIComponent(ref.id));
  out.resource = JSON.parse((await client.readResource({ uri })).contents[0].text);
  out.prompt = (await client.getPrompt({ name: "summarise_changes", arguments: ref })).messages[0].content.text;
}
const bad = await client.callTool({ name: "get_incident", arguments: { source: "nope", id: "nope" } });
out.bad = { isError: bad.isError, text: bad.content?.[0]?.text };
await client.close();
console.log(JSON.stringify(out));
