#!/usr/bin/env node
// apexcheck protocol adapter for pi's bash tool (@mariozechner/pi-coding-agent).
//
// It speaks the apexcheck wire protocol (spec/protocol.md) on stdin/stdout and
// serves each `call` the way pi's agent loop serves a model's tool call:
// prepareArguments (if the tool has one), validateToolArguments from
// @mariozechner/pi-ai, then the tool's execute(). A thrown error becomes an
// error result whose text is the error message, exactly as the agent loop's
// createErrorToolResult does. Nothing in pi's behaviour is changed: the adapter
// only translates, and observes the execution boundary (which shell was
// spawned with which arguments, and how it ended) to report execution facts.
//
// Capabilities declared are only those pi 0.73.1 has: abort (an AbortSignal),
// updates (onUpdate), full-output (the accumulator's temp file), process-tree
// (detached spawn and process-group kill), shell-path (the shellPath option)
// and render (the tool definition's renderCall, with its styling stripped).
// Not declared: background, permissions, path-probe, session-env, evidence.

import { AsyncLocalStorage } from "node:async_hooks";
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { createInterface } from "node:readline";
import { stripVTControlCharacters } from "node:util";

// Protocol messages own stdout (PROTO-2): anything pi or its dependencies
// print with console.log goes to stderr instead.
console.log = console.error;
console.info = console.error;

// Observe every shell pi spawns, attributing it to the call in whose async
// context it happens. The wrapper passes everything through unchanged.
const callContext = new AsyncLocalStorage();
const realSpawn = childProcess.spawn;
childProcess.spawn = function observedSpawn(file, args, options) {
	const child = realSpawn.apply(this, arguments);
	const call = callContext.getStore();
	if (call && !call.spawned) {
		call.spawned = {
			executable: file,
			argv: Array.isArray(args) ? [...args] : [],
			cwd: options?.cwd,
		};
		child.once("exit", (_code, signal) => {
			if (signal) call.spawned.signal = signal;
		});
	}
	return child;
};
// pi imports spawn as an ES module binding: make the binding see the wrapper.
syncBuiltinESMExports();

const pi = await import("@mariozechner/pi-coding-agent");
const { validateToolArguments } = await import("@mariozechner/pi-ai");

const PROTOCOL = 1;
const CAPABILITIES = ["abort", "full-output", "process-tree", "render", "shell-path", "updates"];

const write = (message) => {
	process.stdout.write(`${JSON.stringify(message)}\n`);
};
const protocolError = (id, code, message) => write({ id, type: "error", error: { code, message } });

const inflight = new Map(); // call id -> { controller, done: Promise }
let closing = false;

function textOf(content) {
	if (!Array.isArray(content)) return "";
	return content
		.filter((part) => part?.type === "text")
		.map((part) => part.text)
		.join("");
}

function isObject(v) {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

// checkCall rejects a call whose members have the wrong JSON type (PROTO-15).
function checkCall(req) {
	if (typeof req.cwd !== "string" || req.cwd === "") return "call needs cwd, a non-empty string";
	if (req.options !== undefined && !isObject(req.options)) return "options must be an object";
	const o = req.options ?? {};
	if (o.commandPrefix !== undefined && typeof o.commandPrefix !== "string") return "options.commandPrefix must be a string";
	if (o.shellPath !== undefined && typeof o.shellPath !== "string") return "options.shellPath must be a string";
	for (const flag of ["updates", "evidence", "aborted"]) {
		if (req[flag] !== undefined && typeof req[flag] !== "boolean") return `${flag} must be a boolean`;
	}
	return "";
}

// execution translates what was observed at the spawn boundary into the
// protocol's execution facts (spec/exec.md EXEC-21): all of them when the
// shell ran to an exit, only {cwd, exitCode: null} when pi's backend gave up
// on it (timeout or abort, EXEC-10 and EXEC-11), none when nothing was spawned.
function execution(call) {
	if (!call.spawned) return undefined;
	const cwd = call.spawned.cwd ?? call.cwd;
	if (!call.exited) return { cwd, exitCode: null };
	const e = { cwd, executable: call.spawned.executable, argv: call.spawned.argv, exitCode: call.exitCode };
	if (call.spawned.signal) e.signal = call.spawned.signal;
	return e;
}

// truncation keeps the members the protocol defines (PROTO-8); pi's
// TruncationResult also carries the truncated content itself and a
// head-truncation flag, which the model never sees.
function truncation(t) {
	const keys = ["truncated", "truncatedBy", "totalLines", "totalBytes", "outputLines", "outputBytes", "lastLinePartial", "maxLines", "maxBytes"];
	return Object.fromEntries(keys.map((k) => [k, t[k] ?? null]));
}

function details(toolDetails, exec) {
	const d = {};
	if (toolDetails?.truncation) d.truncation = truncation(toolDetails.truncation);
	if (toolDetails?.fullOutputPath) d.fullOutputPath = toolDetails.fullOutputPath;
	if (exec) d.execution = exec;
	return Object.keys(d).length > 0 ? d : undefined;
}

async function serveCall(req) {
	const call = { cwd: req.cwd, exited: false, exitCode: null };
	const controller = new AbortController();
	if (req.aborted) controller.abort();
	const local = pi.createLocalBashOperations({ shellPath: req.options?.shellPath || undefined });
	// Pass-through operations that remember the exit code pi's backend
	// reported (null when the shell was killed), for the execution facts.
	const operations = {
		exec: async (command, cwd, opts) => {
			const r = await local.exec(command, cwd, opts);
			call.exited = true;
			call.exitCode = r.exitCode;
			return r;
		},
	};
	const tool = pi.createBashTool(req.cwd, {
		operations,
		commandPrefix: req.options?.commandPrefix || undefined,
		shellPath: req.options?.shellPath || undefined,
	});
	const onUpdate = req.updates
		? (partial) => {
				if (!inflight.has(req.id)) return;
				const result = { isError: false, text: textOf(partial?.content) };
				const d = details(partial?.details);
				if (d) result.details = d;
				write({ id: req.id, type: "update", result });
			}
		: undefined;
	const run = async () => {
		// The agent loop: prepare, validate, execute; a throw is an error result.
		try {
			let args = req.arguments;
			if (tool.prepareArguments) args = tool.prepareArguments(args);
			const validated = validateToolArguments(tool, { type: "toolCall", id: req.id, name: tool.name, arguments: args });
			const out = await tool.execute(req.id, validated, controller.signal, onUpdate);
			const result = { isError: false, text: textOf(out?.content) };
			const d = details(out?.details, execution(call));
			if (d) result.details = d;
			return result;
		} catch (err) {
			const result = { isError: true, text: err instanceof Error ? err.message : String(err) };
			const d = details(undefined, execution(call));
			if (d) result.details = d;
			return result;
		}
	};
	const entry = { controller };
	inflight.set(req.id, entry);
	entry.done = callContext.run(call, run).then((result) => {
		inflight.delete(req.id);
		write({ id: req.id, type: "result", result });
	});
	return entry.done;
}

function serve(req) {
	switch (req.type) {
		case "hello": {
			if (!Array.isArray(req.versions) || !req.versions.includes(PROTOCOL)) {
				protocolError(req.id, "unsupported", `this adapter speaks protocol ${PROTOCOL} only`);
				return;
			}
			write({
				id: req.id,
				type: "hello",
				protocol: PROTOCOL,
				implementation: {
					name: "pi-coding-agent",
					version: pi.VERSION,
					language: "typescript",
					homepage: "https://github.com/badlogic/pi-mono",
				},
				capabilities: CAPABILITIES,
			});
			return;
		}
		case "call": {
			if (inflight.has(req.id)) {
				protocolError(req.id, "duplicate-id", `call ${JSON.stringify(req.id)} is already in flight`);
				return;
			}
			const problem = checkCall(req);
			if (problem) {
				protocolError(req.id, "bad-request", problem);
				return;
			}
			serveCall(req);
			return;
		}
		case "abort": {
			inflight.get(req.target)?.controller.abort();
			write({ id: req.id, type: "abort" });
			return;
		}
		case "render":
			write({ id: req.id, type: "render", header: renderHeader(req.arguments) });
			return;
		case "permission":
			protocolError(req.id, "unsupported", `pi's bash tool has no ${req.type} function this adapter exposes`);
			return;
		case "shutdown":
			shutdown(true);
			return;
		default:
			protocolError(req.id, "bad-request", `unknown request type ${JSON.stringify(req.type)}`);
	}
}

// renderHeader is the call header pi's interactive mode shows: the tool
// definition's renderCall, as plain text (PROTO-14 wants no styling).
let themeReady = false;
function renderHeader(args) {
	if (!themeReady) {
		pi.initTheme(undefined, false);
		themeReady = true;
	}
	const definition = pi.createBashToolDefinition(process.cwd());
	const component = definition.renderCall(args, undefined, {
		state: {},
		executionStarted: false,
		lastComponent: undefined,
		isError: false,
		invalidate() {},
	});
	return stripVTControlCharacters(component.text ?? "");
}

// shutdown aborts every call in flight, lets each answer, then exits
// (PROTO-9; without the response on end of input, PROTO-10).
async function shutdown(respondTo) {
	if (closing) return;
	closing = true;
	const pending = [...inflight.values()];
	for (const entry of pending) entry.controller.abort();
	await Promise.all(pending.map((entry) => entry.done));
	if (respondTo) write({ id: lastShutdownId, type: "shutdown" });
	process.stdout.write("", () => process.exit(0));
}

let lastShutdownId = "";
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
	if (req.type === "shutdown") lastShutdownId = req.id;
	serve(req);
});
lines.on("close", () => shutdown(false));
