// The apexcheck wire protocol (spec/protocol.md), as the Node adapters in
// adapters/pi, adapters/gemini and adapters/qwen speak it: newline-delimited
// JSON requests on stdin, one JSON response a line on stdout. This module
// owns what is the same for every tool: reading and checking requests,
// hello, duplicate ids, abort, shutdown, writing responses, and observing
// the shell a call spawns. Each adapter keeps what is its tool's own: how a
// call is run and how its result maps to the protocol's. Plain ESM, no
// dependencies, no side effect on import.

import childProcess from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

/** PROTOCOL is the protocol version these adapters speak. */
export const PROTOCOL = 1;

/** write sends one protocol message, a line of JSON on stdout. */
export const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

/** protocolError answers request id with an error response. */
export const protocolError = (id, code, message) => write({ id, type: "error", error: { code, message } });

/** isObject is whether v is a JSON object (not null, not an array). */
export function isObject(v) {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * redirectConsole sends the named console methods to stderr: protocol
 * messages own stdout (PROTO-2). Call it before importing the tool.
 */
export function redirectConsole(methods) {
	for (const m of methods) console[m] = console.error;
}

// tempDirs are the directories tempHome made, removed on shutdown.
const tempDirs = [];

/**
 * tempHome points the environment variable envVar at a new directory,
 * removed on shutdown, unless it is already set, so the tool keeps its own
 * state (settings, project lists) out of the user's real configuration.
 */
export function tempHome(envVar, prefix) {
	if (process.env[envVar]) return;
	// Under $HOME first (under the kit, the scenario's own $WORK/home), not
	// in $TMPDIR: a scenario may make $TMPDIR a small full disk (impl start
	// -tmpfs) for the tool's full-output file, and the tool's own state
	// there would fill it before any command runs, which no user's disk
	// does. Then the temporary directory, then the working directory.
	let dir;
	for (const parent of [os.homedir(), os.tmpdir(), process.cwd()]) {
		try {
			dir = fs.mkdtempSync(path.join(parent, parent === process.cwd() ? `.${prefix}` : prefix));
			break;
		} catch {
			// not writable: the next one
		}
	}
	if (!dir) throw new Error(`tempHome: no writable directory for ${envVar}`);
	process.env[envVar] = dir;
	tempDirs.push(dir);
}

/**
 * spawnedBy records a spawn of file with args and options on the call in
 * whose async context (callContext's store) it happens, as call.spawned
 * {executable, argv, cwd}, and returns that call; it returns undefined
 * outside a call or when the call already spawned its shell, so that only
 * the first spawn of a call is observed.
 */
export function spawnedBy(callContext, file, args, options) {
	const call = callContext.getStore();
	if (!call || call.spawned) return undefined;
	call.spawned = { executable: file, argv: Array.isArray(args) ? [...args] : [], cwd: options?.cwd };
	return call;
}

/**
 * observeSpawn wraps child_process.spawn so that the first shell spawned
 * in a call's async context is recorded on that call (spawnedBy), with the
 * signal that ended it; with exitStatus it also records call.exited and
 * call.exitCode when that child exits. ignore(file, args), optional, names
 * spawns that are not the command's shell (a helper the tool starts
 * beside it), which are not recorded. The wrapper passes everything
 * through unchanged. Call it before importing the tool: a tool importing
 * spawn as an ES module binding sees the wrapper only through
 * syncBuiltinESMExports.
 */
export function observeSpawn(callContext, { exitStatus, ignore }) {
	const realSpawn = childProcess.spawn;
	childProcess.spawn = function observedSpawn(file, args, options) {
		const child = realSpawn.apply(this, arguments);
		if (ignore?.(file, args)) return child;
		const call = spawnedBy(callContext, file, args, options);
		if (call) {
			child.once("exit", (code, signal) => {
				if (exitStatus) {
					call.exited = true;
					call.exitCode = code;
				}
				if (signal) call.spawned.signal = signal;
			});
		}
		return child;
	};
	syncBuiltinESMExports();
}

/**
 * execution translates what was observed at the spawn boundary into the
 * protocol's execution facts (spec/exec.md EXEC-21): all of them when the
 * shell ran to an exit, only {cwd, exitCode: null} when the tool gave up
 * on it (timeout or abort, EXEC-10 and EXEC-11; call.aborted where the
 * adapter tracks it), none when nothing was spawned.
 */
export function execution(call) {
	if (!call.spawned) return undefined;
	const cwd = call.spawned.cwd ?? call.cwd;
	if (!call.exited || call.aborted) return { cwd, exitCode: null };
	const e = { cwd, executable: call.spawned.executable, argv: call.spawned.argv, exitCode: call.exitCode };
	if (call.spawned.signal) e.signal = call.spawned.signal;
	return e;
}

/**
 * newCall is the record of one call, which the spawn observation and the
 * adapter fill in, and its AbortController, already aborted when the
 * request says so. With trackAbort, call.aborted records an abort, and
 * execution then reports the shell as given up on.
 */
export function newCall(req, { trackAbort }) {
	const call = { cwd: req.cwd, exited: false, exitCode: null };
	const controller = new AbortController();
	if (trackAbort) {
		call.aborted = false;
		controller.signal.addEventListener("abort", () => (call.aborted = true), { once: true });
	}
	if (req.aborted) controller.abort();
	return { call, controller };
}

/**
 * errorResult is the result of a call whose tool threw err, as an agent
 * loop reports a throw to the model: the error's message; with the
 * execution facts of call when it spawned a shell.
 */
export function errorResult(err, call) {
	const result = { isError: true, text: err instanceof Error ? err.message : String(err) };
	const exec = execution(call);
	if (exec) result.details = { execution: exec };
	return result;
}

// checkCall rejects a call whose members have the wrong JSON type
// (PROTO-15); checkOptions, when given, checks the tool's own options.
function checkCall(req, checkOptions) {
	if (typeof req.cwd !== "string" || req.cwd === "") return "call needs cwd, a non-empty string";
	if (req.options !== undefined && !isObject(req.options)) return "options must be an object";
	if (checkOptions) {
		const problem = checkOptions(req.options ?? {});
		if (problem) return problem;
	}
	for (const flag of ["updates", "evidence", "aborted"]) {
		if (req[flag] !== undefined && typeof req[flag] !== "boolean") return `${flag} must be a boolean`;
	}
	return "";
}

/**
 * serve reads requests from stdin and answers them until shutdown or end
 * of input. adapter gives what is the tool's own:
 *
 *   - implementation and capabilities, for the hello response;
 *   - checkOptions(options), optional: a problem with the tool's own call
 *     options, or "";
 *   - call(req): starts nothing yet, returns {controller, start}, the
 *     call's AbortController and a function that runs the call and
 *     resolves to its result (it must not reject);
 *   - render(req), optional: answers a render request;
 *   - unsupported(type): the message of the "unsupported" error that
 *     answers a render (without render) or permission request.
 *
 * It returns {inFlight(id)}, whether call id is still in flight.
 */
export function serve(adapter) {
	const inflight = new Map(); // call id -> { controller, done: Promise }
	let closing = false;

	// startCall is async so that a throw while setting up a call is a
	// rejection, not an exception out of the line reader.
	async function startCall(req) {
		const { controller, start } = adapter.call(req);
		const entry = { controller };
		inflight.set(req.id, entry);
		entry.done = start().then((result) => {
			inflight.delete(req.id);
			write({ id: req.id, type: "result", result });
		});
		return entry.done;
	}

	function dispatch(req) {
		switch (req.type) {
			case "hello":
				if (!Array.isArray(req.versions) || !req.versions.includes(PROTOCOL)) {
					protocolError(req.id, "unsupported", `this adapter speaks protocol ${PROTOCOL} only`);
					return;
				}
				write({
					id: req.id,
					type: "hello",
					protocol: PROTOCOL,
					implementation: adapter.implementation,
					capabilities: adapter.capabilities,
				});
				return;
			case "call": {
				if (inflight.has(req.id)) {
					protocolError(req.id, "duplicate-id", `call ${JSON.stringify(req.id)} is already in flight`);
					return;
				}
				const problem = checkCall(req, adapter.checkOptions);
				if (problem) {
					protocolError(req.id, "bad-request", problem);
					return;
				}
				startCall(req);
				return;
			}
			case "abort":
				inflight.get(req.target)?.controller.abort();
				write({ id: req.id, type: "abort" });
				return;
			case "render":
				if (adapter.render) {
					adapter.render(req);
					return;
				}
				protocolError(req.id, "unsupported", adapter.unsupported(req.type));
				return;
			case "permission":
				protocolError(req.id, "unsupported", adapter.unsupported(req.type));
				return;
			case "shutdown":
				shutdown(req.id);
				return;
			default:
				protocolError(req.id, "bad-request", `unknown request type ${JSON.stringify(req.type)}`);
		}
	}

	// shutdown aborts every call in flight, lets each answer, then exits
	// (PROTO-9; without the response on end of input, PROTO-10).
	async function shutdown(id) {
		if (closing) return;
		closing = true;
		const pending = [...inflight.values()];
		for (const entry of pending) entry.controller.abort();
		await Promise.all(pending.map((entry) => entry.done));
		if (id !== undefined) write({ id, type: "shutdown" });
		for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
		process.stdout.write("", () => process.exit(0));
	}

	const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
	lines.on("line", (line) => {
		if (closing || line.trim() === "") return;
		let req;
		try {
			req = JSON.parse(line);
		} catch (err) {
			protocolError("", "bad-request", `request is not JSON: ${err.message}`);
			return;
		}
		if (!isObject(req)) {
			protocolError("", "bad-request", "request is not a JSON object");
			return;
		}
		if (typeof req.id !== "string" || req.id === "") {
			protocolError("", "bad-request", "request has no id");
			return;
		}
		if (typeof req.type !== "string") {
			protocolError(req.id, "bad-request", "request has no type");
			return;
		}
		dispatch(req);
	});
	lines.on("close", () => shutdown(undefined));

	return { inFlight: (id) => inflight.has(id) };
}
