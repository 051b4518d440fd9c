#!/usr/bin/env node
// apexcheck adapter skeleton (Node.js 18 or later, no dependencies).
//
// It speaks the apexcheck wire protocol (spec/protocol.md in the kit) on
// stdin and stdout: one JSON object per line, requests in, responses out.
// Everything in this file is protocol plumbing except ONE function, runTool,
// which is marked below: replace its body with a call into your bash tool.
//
// As generated, runTool runs the command with a plain `bash -lc` subprocess.
// That passes the protocol scenarios (proto_*) and shows the shape of a
// result; it is not a conforming bash tool (no call parsing, no truncation,
// no background shells), and the kit's other scenarios say exactly what is
// missing.
//
// Run it:
//
//   apexcheck --impl 'node ./adapter.mjs'
//   apexcheck --impl 'node ./adapter.mjs' --run '^exec_exit' -v   # one area, with logs
//
// Rules the plumbing keeps for you (spec/INTERPRETING.md, "Rules of thumb"):
// stdout carries only protocol messages (log to stderr); each message is
// written whole; requests keep being read while calls run, so an abort
// reaches a running call; shutdown and end of stdin abort every call in
// flight and exit.

import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { constants } from "node:os";
import { createInterface } from "node:readline";

const PROTOCOL = 1;

// Who you are, as the certificate will name you.
const IMPLEMENTATION = { name: "my-bash-tool", version: "0.0.0", language: "javascript" };

// Capabilities are optional features (spec/protocol.md PROTO-4). Declare
// only what your tool really does: a declared capability is tested, an
// undeclared one is skipped (and never counted as a pass).
//   abort         runTool stops the command when `signal` fires
//   process-tree  the command runs in a session of its own and an abort
//                 kills its whole process group
// Others you may add once your tool supports them: background, evidence,
// full-output, path-probe, permissions, render, session-env, shell-path,
// updates (each needs more plumbing; see spec/protocol.md).
const CAPABILITIES = ["abort", "process-tree"];

// ---------------------------------------------------------------------------
// >>> REPLACE THIS FUNCTION with a call into your bash tool. <<<
//
// args     the raw tool arguments exactly as the model sent them: any JSON
//          value, malformed shapes included (spec/call.md). Do not
//          pre-validate them here; that is your tool's job.
// cwd      the absolute working directory of the call.
// options  { commandPrefix, shellPath, exposeSessionEnvironment }, any of
//          them absent (spec/protocol.md PROTO-7).
// signal   an AbortSignal: kill the command when it fires.
//
// Resolve to the tool result: { isError, text } and, when the tool has
// them, details (spec/protocol.md PROTO-8). A failed tool call is a result
// with isError true, never a rejection.
// ---------------------------------------------------------------------------
async function runTool(args, cwd, options, signal) {
	if (typeof args !== "object" || args === null || typeof args.command !== "string") {
		return { isError: true, text: 'this skeleton only runs {"command": "..."}' };
	}
	let command = args.command;
	// Seconds; anything but a number means no timeout.
	const timeout = typeof args.timeout === "number" ? args.timeout : undefined;
	if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) {
		return { isError: true, text: "Invalid timeout: must be a finite number of seconds" };
	}
	if (timeout !== undefined && timeout * 1000 > 2147483647) {
		return { isError: true, text: "Invalid timeout: maximum is 2147483.647 seconds" };
	}
	if (typeof options.commandPrefix === "string" && options.commandPrefix !== "") {
		command = `${options.commandPrefix}\n${command}`;
	}
	if (signal.aborted) return { isError: true, text: "Command aborted" };
	if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
		return { isError: true, text: `Working directory does not exist: ${cwd}\nCannot execute bash commands.` };
	}
	const shell = "/bin/bash";
	const argv = ["-lc", command];
	return new Promise((resolve) => {
		// detached: a session of its own (setsid), so that an abort can kill
		// the whole process group; stdin is the null device.
		const child = spawn(shell, argv, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
		const chunks = [];
		child.stdout.on("data", (d) => chunks.push(d));
		child.stderr.on("data", (d) => chunks.push(d));
		let stopped = ""; // why the group was killed, if it was
		const killGroup = (why) => {
			stopped ||= why;
			try {
				process.kill(-child.pid, "SIGKILL");
			} catch {}
		};
		const onAbort = () => killGroup("Command aborted");
		signal.addEventListener("abort", onAbort, { once: true });
		const timer =
			timeout === undefined ? undefined : setTimeout(() => killGroup(`Command timed out after ${timeout} seconds`), timeout * 1000);
		child.on("error", (err) => resolve({ isError: true, text: err.message }));
		// Descendants may hold the pipes open after the shell exits: once it
		// has, read until both pipes close or for a short grace period,
		// whichever comes first (spec/exec.md EXEC-19).
		let exit;
		let open = 2;
		let finished = false;
		const finish = () => {
			if (finished || !exit) return;
			finished = true;
			clearTimeout(timer);
			signal.removeEventListener("abort", onAbort);
			child.stdout.destroy();
			child.stderr.destroy();
			const output = Buffer.concat(chunks).toString("utf8");
			if (stopped) {
				resolve({ isError: true, text: (output ? `${output}\n\n` : "") + stopped, details: { execution: { cwd, exitCode: null } } });
				return;
			}
			const exitCode = exit.code ?? 128 + (constants.signals[exit.sig] ?? 0); // killed by signal n: 128+n
			const execution = { cwd, executable: shell, argv, exitCode };
			const text = output || "(no output)";
			if (exitCode !== 0) {
				resolve({ isError: true, text: `${text}\n\nCommand exited with code ${exitCode}`, details: { execution } });
			} else {
				resolve({ isError: false, text, details: { execution } });
			}
		};
		const closed = () => {
			if (--open === 0) finish();
		};
		child.stdout.on("close", closed);
		child.stderr.on("close", closed);
		child.on("exit", (code, sig) => {
			exit = { code, sig };
			if (open === 0) finish();
			else setTimeout(finish, 100);
		});
	});
}

// ---------------------------------------------------------------------------
// Everything below is protocol plumbing; you should not need to change it.
// ---------------------------------------------------------------------------

// send writes one message as one whole line (PROTO-1, PROTO-2).
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const sendError = (id, code, message) => send({ id, type: "error", error: { code, message } });

const inflight = new Map(); // call id -> { controller, done }
let closing = false;

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

// checkCall returns what is wrong with a call's members, or "" (PROTO-15).
function checkCall(req) {
	if (typeof req.cwd !== "string" || req.cwd === "") return "call needs cwd, a non-empty string";
	if (req.options !== undefined && !isObject(req.options)) return "options must be an object";
	const o = req.options ?? {};
	for (const key of ["commandPrefix", "shellPath"]) {
		if (o[key] !== undefined && typeof o[key] !== "string") return `options.${key} must be a string`;
	}
	if (o.exposeSessionEnvironment !== undefined && typeof o.exposeSessionEnvironment !== "boolean") {
		return "options.exposeSessionEnvironment must be a boolean";
	}
	if (req.session !== undefined && !isObject(req.session)) return "session must be an object";
	for (const key of ["updates", "evidence", "aborted"]) {
		if (req[key] !== undefined && typeof req[key] !== "boolean") return `${key} must be a boolean`;
	}
	return "";
}

function serveCall(req) {
	const controller = new AbortController();
	if (req.aborted) controller.abort();
	const entry = { controller };
	inflight.set(req.id, entry);
	entry.done = runTool(req.arguments, req.cwd, req.options ?? {}, controller.signal)
		.catch((err) => ({ isError: true, text: String(err?.message ?? err) })) // a crash is still a result
		.then((result) => {
			inflight.delete(req.id);
			send({ id: req.id, type: "result", result });
		});
}

function serve(req) {
	switch (req.type) {
		case "hello":
			if (!Array.isArray(req.versions) || !req.versions.includes(PROTOCOL)) {
				return sendError(req.id, "unsupported", `this adapter speaks protocol ${PROTOCOL} only`);
			}
			return send({ id: req.id, type: "hello", protocol: PROTOCOL, implementation: IMPLEMENTATION, capabilities: CAPABILITIES });
		case "call": {
			if (inflight.has(req.id)) return sendError(req.id, "duplicate-id", `call ${JSON.stringify(req.id)} is already in flight`);
			const problem = checkCall(req);
			if (problem) return sendError(req.id, "bad-request", problem);
			return serveCall(req);
		}
		case "abort":
			if (typeof req.target !== "string") return sendError(req.id, "bad-request", "abort needs target, a string");
			inflight.get(req.target)?.controller.abort();
			return send({ id: req.id, type: "abort" });
		case "permission":
		case "render":
			return sendError(req.id, "unsupported", `${req.type} is not a declared capability`);
		case "shutdown":
			return shutdown(req.id);
		default:
			return sendError(req.id, "bad-request", `unknown request type ${JSON.stringify(req.type)}`);
	}
}

// shutdown aborts every call in flight, lets each answer, then exits
// (PROTO-9; on end of stdin, PROTO-10, without the shutdown response).
async function shutdown(id) {
	if (closing) return;
	closing = true;
	const pending = [...inflight.values()];
	for (const entry of pending) entry.controller.abort();
	await Promise.all(pending.map((entry) => entry.done));
	if (id !== undefined) send({ id, type: "shutdown" });
	process.stdout.write("", () => process.exit(0));
}

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on("line", (line) => {
	if (closing || line.trim() === "") return;
	let req;
	try {
		req = JSON.parse(line);
	} catch (err) {
		return sendError("", "bad-request", `request is not JSON: ${err.message}`);
	}
	if (!isObject(req)) return sendError("", "bad-request", "request is not a JSON object");
	if (typeof req.id !== "string" || req.id === "") return sendError("", "bad-request", "request has no id");
	if (typeof req.type !== "string") return sendError(req.id, "bad-request", "request has no type");
	serve(req);
});
lines.on("close", () => shutdown(undefined));
