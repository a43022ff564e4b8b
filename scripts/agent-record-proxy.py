#!/usr/bin/env python3
"""A recording reverse proxy for coding-agent clients (issue 21).

Listens on 127.0.0.1:PORT, forwards every request to UPSTREAM (the server, on loopback), streams the answer
back as it comes (server-sent events included) and writes one JSON file per exchange into OUTDIR:
NN-METHOD-path.json with the request (method, path, headers, body: parsed JSON when it is JSON) and the
response (status, headers, body: parsed JSON, or the raw text of an event stream).

Headers that carry secrets (authorization, x-api-key, cookie) are recorded as "<redacted>".

--rewrite 'OLD=>NEW' (repeatable) replaces OLD by NEW in the body of every 4xx answer before the client sees it
(the record keeps both): a way to see what a client does with another error wording, e.g. whether its own
fallback fires, before the server is changed.

--fold-system-messages turns every {"role": "system"} entry of an Anthropic request's "messages" (/v1/messages)
into a user turn before it is forwarded (the record keeps what the client sent): a way to see the rest of a session of a
client that sends them, before the server accepts them.

--flatten-tools turns every "namespace" tool of a Responses request (/v1/responses) into its member functions
and leaves out tools that are not functions (hosted tools such as web_search) before it is forwarded, for the
same purpose.

Usage: agent-record-proxy.py --port 0 --upstream http://127.0.0.1:8080 --out DIR [--port-file FILE]
       [--rewrite 'OLD=>NEW']... [--fold-system-messages] [--flatten-tools]
Standard library only, so that CI can run it anywhere python3 is.
"""
import argparse
import http.client
import http.server
import json
import os
import re
import threading
import urllib.parse

SECRET_HEADERS = {"authorization", "x-api-key", "cookie", "proxy-authorization", "api-key"}
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
               "proxy-connection", "content-length", "host"}


def parse_body(raw, content_type):
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    if "json" in (content_type or "") or text[:1] in "{[":
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def fold_system_messages(body):
    try:
        doc = json.loads(body)
    except ValueError:
        return body
    msgs = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(msgs, list) or not any(isinstance(m, dict) and m.get("role") == "system" for m in msgs):
        return body
    for m in msgs:
        if isinstance(m, dict) and m.get("role") == "system":
            m["role"] = "user"
    return json.dumps(doc).encode("utf-8")


def flatten_tools(body):
    try:
        doc = json.loads(body)
    except ValueError:
        return body
    tools = doc.get("tools") if isinstance(doc, dict) else None
    if not isinstance(tools, list) or all(isinstance(t, dict) and t.get("type") == "function" for t in tools):
        return body
    flat = []
    for t in tools:
        if not isinstance(t, dict):
            continue
        if t.get("type") == "namespace":
            flat.extend(m for m in t.get("tools", []) if isinstance(m, dict) and m.get("type") == "function")
        elif t.get("type") == "function":
            flat.append(t)
    doc["tools"] = flat
    return json.dumps(doc).encode("utf-8")


def make_handler(upstream, outdir, counter, rewrites, fold, flatten):
    target = urllib.parse.urlsplit(upstream)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # the files are the log
            pass

        def _proxy(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = self._read_chunked()
            with counter["lock"]:
                counter["n"] += 1
                seq = counter["n"]
            sent = body
            if fold and body and urllib.parse.urlsplit(self.path).path.endswith("/messages"):
                sent = fold_system_messages(sent)
            if flatten and body and urllib.parse.urlsplit(self.path).path.endswith("/responses"):
                sent = flatten_tools(sent)
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=900)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
            headers["Host"] = target.netloc
            if sent:
                headers["Content-Length"] = str(len(sent))
            record = {
                "seq": seq,
                "request": {
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): ("<redacted>" if k.lower() in SECRET_HEADERS else v)
                                for k, v in self.headers.items()},
                    "body": parse_body(body, self.headers.get("Content-Type")),
                },
            }
            if sent != body:
                record["forwarded_body"] = parse_body(sent, "application/json")
            try:
                conn.request(self.command, self.path, body=sent or None, headers=headers)
                resp = conn.getresponse()
            except OSError as e:
                record["response"] = {"error": str(e)}
                self._write(seq, record)
                self.send_error(502, str(e))
                return
            if rewrites and 400 <= resp.status < 500:
                self._answer_rewritten(seq, record, resp, rewrites)
                conn.close()
                return
            self.send_response(resp.status, resp.reason)
            resp_headers = {}
            for k, v in resp.getheaders():
                resp_headers[k.lower()] = v
                if k.lower() not in HOP_HEADERS:
                    self.send_header(k, v)
            chunked = resp.getheader("Content-Length") is None
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", resp.getheader("Content-Length"))
            self.end_headers()
            collected = bytearray()
            while True:
                chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
                if not chunk:
                    break
                collected += chunk
                try:
                    if chunked:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    else:
                        self.wfile.write(chunk)
                    self.wfile.flush()
                except OSError:
                    break  # the client went away: keep what was recorded
            if chunked:
                try:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except OSError:
                    pass
            record["response"] = {
                "status": resp.status,
                "headers": resp_headers,
                "body": parse_body(bytes(collected), resp.getheader("Content-Type")),
            }
            conn.close()
            self._write(seq, record)

        def _answer_rewritten(self, seq, record, resp, rewrites):
            raw = resp.read()
            text = raw.decode("utf-8", errors="replace")
            for a, b in rewrites:
                text = text.replace(a, b)
            out = text.encode("utf-8")
            self.send_response(resp.status, resp.reason)
            headers = {k.lower(): v for k, v in resp.getheaders()}
            for k, v in resp.getheaders():
                if k.lower() not in HOP_HEADERS:
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            self.wfile.flush()
            record["response"] = {"status": resp.status, "headers": headers,
                                  "body": parse_body(raw, headers.get("content-type"))}
            if out != raw:
                record["response"]["rewritten_body"] = parse_body(out, headers.get("content-type"))
            self._write(seq, record)

        def _read_chunked(self):
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()

        def _write(self, seq, record):
            path = re.sub(r"[^A-Za-z0-9]+", "-", urllib.parse.urlsplit(self.path).path).strip("-")
            name = "%03d-%s-%s.json" % (seq, self.command, path or "root")
            with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
                json.dump(record, f, indent=2, ensure_ascii=False)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = _proxy

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--port-file")
    ap.add_argument("--rewrite", action="append", default=[])
    ap.add_argument("--fold-system-messages", action="store_true")
    ap.add_argument("--flatten-tools", action="store_true")
    args = ap.parse_args()
    rewrites = [tuple(r.split("=>", 1)) for r in args.rewrite]
    os.makedirs(args.out, exist_ok=True)
    counter = {"n": 0, "lock": threading.Lock()}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port),
                                             make_handler(args.upstream, args.out, counter, rewrites,
                                                          args.fold_system_messages, args.flatten_tools))
    port = server.server_address[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    print("recording proxy on 127.0.0.1:%d -> %s, files in %s" % (port, args.upstream, args.out), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
