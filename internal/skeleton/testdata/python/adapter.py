#!/usr/bin/env python3
"""apexcheck adapter skeleton (Python, standard library only).

It speaks the apexcheck wire protocol (spec/protocol.md in the kit) on stdin
and stdout: one JSON object per line, requests in, responses out. Everything
in this file is protocol plumbing except ONE function, run_tool, which is
marked below: replace its body with a call into your bash tool.

As generated, run_tool runs the command with a plain `bash -lc` subprocess.
That passes the protocol scenarios (proto_*) and shows the shape of a result;
it is not a conforming bash tool (no call parsing, no truncation, no background
shells), and the kit's other scenarios say exactly what is missing.

Run it:

    apexcheck --impl 'python3 ./adapter.py'
    apexcheck --impl 'python3 ./adapter.py' --run '^exec_exit' -v   # one area, with logs

Rules the plumbing keeps for you (spec/INTERPRETING.md, "Rules of thumb"):
stdout carries only protocol messages (print diagnostics to stderr); each
message is written whole; requests keep being read while calls run, so an
abort reaches a running call; shutdown and end of stdin abort every call in
flight and exit.
"""

import json
import math
import os
import re
import signal
import subprocess
import sys
import threading

PROTOCOL = 1

# Who you are, as the certificate will name you.
IMPLEMENTATION = {"name": "my-bash-tool", "version": "0.0.0", "language": "python"}

# Capabilities are optional features (spec/protocol.md PROTO-4). Declare
# only what your tool really does: a declared capability is tested, an
# undeclared one is skipped (and never counted as a pass).
#   abort         run_tool stops the command when `signal` fires
#   process-tree  the command runs in a session of its own and an abort
#                 kills its whole process group
# Others you may add once your tool supports them: background, evidence,
# full-output, path-probe, permissions, render, session-env, shell-path,
# updates (each needs more plumbing; see spec/protocol.md).
CAPABILITIES = ["abort", "process-tree"]


class AbortSignal:
    """A call's abort signal: fired by an `abort` request, by shutdown, or
    before the call starts when the request says "aborted": true."""

    def __init__(self):
        self._lock = threading.Lock()
        self._listeners = []
        self.aborted = False

    def add_listener(self, fn):
        """Call fn once when the signal fires (at once if it already has)."""
        with self._lock:
            if not self.aborted:
                self._listeners.append(fn)
                return
        fn()

    def abort(self):
        with self._lock:
            if self.aborted:
                return
            self.aborted = True
            listeners, self._listeners = self._listeners, []
        for fn in listeners:
            fn()


# ---------------------------------------------------------------------------
# >>> REPLACE THIS FUNCTION with a call into your bash tool. <<<
#
# arguments  the raw tool arguments exactly as the model sent them: any JSON
#            value, malformed shapes included (spec/call.md). Do not
#            pre-validate them here; that is your tool's job.
# cwd        the absolute working directory of the call.
# options    {"commandPrefix", "shellPath", "exposeSessionEnvironment"}, any
#            of them absent (spec/protocol.md PROTO-7).
# abort      an AbortSignal: kill the command when it fires.
#
# Return the tool result: {"isError": bool, "text": str} and, when the tool
# has them, "details" (spec/protocol.md PROTO-8). A failed tool call is a
# result with isError true, never an exception.
# ---------------------------------------------------------------------------
def run_tool(arguments, cwd, options, abort):
    if not isinstance(arguments, dict) or not isinstance(arguments.get("command"), str):
        return {"isError": True, "text": "this skeleton only runs {\"command\": \"...\"}"}
    command = arguments["command"]
    timeout = arguments.get("timeout")  # seconds; anything but a number means none
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        timeout = None
    if timeout is not None and (not math.isfinite(timeout) or timeout <= 0):
        return {"isError": True, "text": "Invalid timeout: must be a finite number of seconds"}
    if timeout is not None and timeout * 1000 > 2147483647:
        return {"isError": True, "text": "Invalid timeout: maximum is 2147483.647 seconds"}
    prefix = options.get("commandPrefix")
    if isinstance(prefix, str) and prefix:
        command = prefix + "\n" + command
    if abort.aborted:
        return {"isError": True, "text": "Command aborted"}
    if not os.path.isdir(cwd):
        return {"isError": True, "text": "Working directory does not exist: %s\nCannot execute bash commands." % cwd}
    shell = "/bin/bash"
    argv = ["-lc", command]
    # A session of its own (setsid), so that an abort can kill the whole
    # process group; stdin is the null device; stdout and stderr both feed
    # the one output.
    proc = subprocess.Popen([shell] + argv, cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    chunks = []

    def read_output():
        while True:
            chunk = proc.stdout.read1(65536)
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=read_output, daemon=True)
    reader.start()

    def kill_group():
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    abort.add_listener(kill_group)
    timed_out = threading.Event()

    def expire():
        timed_out.set()
        kill_group()

    timer = threading.Timer(timeout, expire) if timeout is not None else None
    if timer:
        timer.start()
    code = proc.wait()
    if timer:
        timer.cancel()
    # Descendants may hold the pipe open after the shell exits: read for a
    # short grace period, not until they end (spec/exec.md EXEC-19).
    reader.join(0.1)
    output = b"".join(list(chunks)).decode("utf-8", errors="replace")
    if abort.aborted or timed_out.is_set():
        status = "Command aborted"
        if timed_out.is_set():
            status = "Command timed out after %s seconds" % js_number(timeout)
        return {"isError": True, "text": (output + "\n\n" if output else "") + status,
                "details": {"execution": {"cwd": cwd, "exitCode": None}}}
    if code < 0:
        code = 128 - code  # killed by signal n: reported as 128+n
    facts = {"cwd": cwd, "executable": shell, "argv": argv, "exitCode": code}
    text = output or "(no output)"
    if code != 0:
        return {"isError": True, "text": text + "\n\nCommand exited with code %d" % code,
                "details": {"execution": facts}}
    return {"isError": False, "text": text, "details": {"execution": facts}}


def js_number(x):
    """Formats a number as JavaScript's Number.prototype.toString does, for
    the usual cases (0.5, 1, 1e-7)."""
    s = repr(float(x))
    if s.endswith(".0"):
        s = s[:-2]
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", s)  # 1e-07 -> 1e-7
# ---------------------------------------------------------------------------
# Everything below is protocol plumbing; you should not need to change it.
# ---------------------------------------------------------------------------


_write_lock = threading.Lock()


def send(message):
    """Writes one message as one whole line (PROTO-1, PROTO-2)."""
    line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
    with _write_lock:
        sys.stdout.buffer.write(line.encode("utf-8"))
        sys.stdout.buffer.flush()


def send_error(id_, code, message):
    send({"id": id_, "type": "error", "error": {"code": code, "message": message}})


_inflight = {}  # call id -> (AbortSignal, thread)
_inflight_lock = threading.Lock()


def check_call(req):
    """Returns what is wrong with a call's members, or "" (PROTO-15)."""
    if not isinstance(req.get("cwd"), str) or not req["cwd"]:
        return "call needs cwd, a non-empty string"
    options = req.get("options", {})
    if not isinstance(options, dict):
        return "options must be an object"
    for key in ("commandPrefix", "shellPath"):
        if key in options and not isinstance(options[key], str):
            return "options.%s must be a string" % key
    if "exposeSessionEnvironment" in options and not isinstance(options["exposeSessionEnvironment"], bool):
        return "options.exposeSessionEnvironment must be a boolean"
    if "session" in req and not isinstance(req["session"], dict):
        return "session must be an object"
    for key in ("updates", "evidence", "aborted"):
        if key in req and not isinstance(req[key], bool):
            return "%s must be a boolean" % key
    return ""


def serve_call(req):
    id_ = req["id"]
    abort = AbortSignal()
    if req.get("aborted"):
        abort.abort()

    def run():
        try:
            result = run_tool(req.get("arguments"), req["cwd"], req.get("options", {}), abort)
        except Exception as e:  # a crash in the tool is still a result
            result = {"isError": True, "text": "%s: %s" % (type(e).__name__, e)}
        with _inflight_lock:
            _inflight.pop(id_, None)
        send({"id": id_, "type": "result", "result": result})

    thread = threading.Thread(target=run, daemon=True)
    with _inflight_lock:
        _inflight[id_] = (abort, thread)
    thread.start()


def serve(req):
    id_, kind = req["id"], req["type"]
    if kind == "hello":
        if not isinstance(req.get("versions"), list) or PROTOCOL not in req["versions"]:
            send_error(id_, "unsupported", "this adapter speaks protocol %d only" % PROTOCOL)
            return
        send({"id": id_, "type": "hello", "protocol": PROTOCOL,
              "implementation": IMPLEMENTATION, "capabilities": CAPABILITIES})
    elif kind == "call":
        with _inflight_lock:
            duplicate = id_ in _inflight
        if duplicate:
            send_error(id_, "duplicate-id", "call %s is already in flight" % json.dumps(id_))
            return
        problem = check_call(req)
        if problem:
            send_error(id_, "bad-request", problem)
            return
        serve_call(req)
    elif kind == "abort":
        if not isinstance(req.get("target"), str):
            send_error(id_, "bad-request", "abort needs target, a string")
            return
        with _inflight_lock:
            entry = _inflight.get(req["target"])
        if entry:
            entry[0].abort()
        send({"id": id_, "type": "abort"})
    elif kind in ("permission", "render"):
        send_error(id_, "unsupported", "%s is not a declared capability" % kind)
    else:
        send_error(id_, "bad-request", "unknown request type %s" % json.dumps(kind))


def shutdown(id_):
    """Aborts every call in flight, lets each answer, then exits (PROTO-9;
    on end of stdin, PROTO-10, without the shutdown response)."""
    with _inflight_lock:
        entries = list(_inflight.values())
    for abort, _ in entries:
        abort.abort()
    for _, thread in entries:
        thread.join()
    if id_ is not None:
        send({"id": id_, "type": "shutdown"})
    sys.stdout.flush()
    os._exit(0)  # daemon reader threads may still block on pipes


def main():
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            send_error("", "bad-request", "request is not JSON: %s" % e)
            continue
        if not isinstance(req, dict):
            send_error("", "bad-request", "request is not a JSON object")
            continue
        if not isinstance(req.get("id"), str) or not req["id"]:
            send_error("", "bad-request", "request has no id")
            continue
        if not isinstance(req.get("type"), str):
            send_error(req["id"], "bad-request", "request has no type")
            continue
        if req["type"] == "shutdown":
            shutdown(req["id"])
        serve(req)
    shutdown(None)


if __name__ == "__main__":
    main()
