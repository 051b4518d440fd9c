#!/usr/bin/env node
// apexcheck protocol adapter for Gemini CLI's shell tool, run_shell_command
// (@google/gemini-cli-core 0.61.0, pinned in package-lock.json).
//
// It speaks the kit's protocol (spec/protocol.md) on stdin/stdout and serves
// every call with Gemini CLI's own code, in-process: a Config initialized as
// the non-interactive CLI does (YOLO approval, so no confirmation prompt, no
// telemetry), and per call a Scheduler, the orchestrator Gemini CLI's agent
// loop hands a model's tool calls to, which validates the arguments, runs
// the tool, truncates its output and writes the full-output file. The
// adapter translates and observes; it changes nothing in the tool:
//
//   - arguments pass through unchanged: the kit's `command` is Gemini's
//     `command`; members Gemini's schema does not know (`timeout`) are
//     ignored by Gemini, as they would be from a model;
//   - the text is what the model receives: the `output` (or `error`) member
//     of the function response Gemini builds; isError is true when that
//     response is an error (Gemini reports a non-zero exit as a successful
//     response whose text says "Exit Code: N");
//   - the full-output file is the one the scheduler names (outputFile);
//   - the execution facts are observed at the spawn boundary (which shell,
//     which argv, its exit code or signal), as adapters/pi does.
//
// Each distinct call cwd gets its own Config whose workspace (targetDir) is
// that directory, as if Gemini CLI had been started there: Gemini refuses a
// dir_path outside its workspace, and a host starts the agent in the
// project it works on. GEMINI_CLI_HOME points at a temporary directory
// (removed on exit) unless already set, so nothing is written to ~/.gemini.
//
// Capabilities: abort (the tool takes an AbortSignal), full-output (the
// scheduler's truncated-output file), process-tree (spawned detached, killed
// by process group). Not declared: updates (not wired to the scheduler's
// live output in this adapter), background (Gemini's is_background has no
// retrieve or kill through the tool), shell-path (the shell is fixed:
// bash), session-env, render, permissions (the policy engine is not the
// kit's rule model), evidence, path-probe.

import { AsyncLocalStorage } from "node:async_hooks";
import childProcess from "node:child_process";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

// Protocol messages own stdout (PROTO-2).
console.log = console.error;
console.info = console.error;
console.warn = console.error;
console.debug = console.error;

let tempHome = "";
if (!process.env.GEMINI_CLI_HOME) {
	// The temporary directory, or the working directory when it cannot be
	// written (a scenario may make it so); either way not the user's home.
	try {
		tempHome = fs.mkdtempSync(path.join(os.tmpdir(), "apexcheck-gemini-home-"));
	} catch {
		tempHome = fs.mkdtempSync(path.join(process.cwd(), ".apexcheck-gemini-home-"));
	}
	process.env.GEMINI_CLI_HOME = tempHome;
}

const callContext = new AsyncLocalStorage();
const realSpawn = childProcess.spawn;
childProcess.spawn = function observedSpawn(file, args, options) {
	const child = realSpawn.apply(this, arguments);
	const call = callContext.getStore();
	if (call && !call.spawned) {
		call.spawned = { executable: file, argv: Array.isArray(args) ? [...args] : [], cwd: options?.cwd };
		child.once("exit", (code, signal) => {
			call.exited = true;
			call.exitCode = code;
			if (signal) call.spawned.signal = signal;
		});
	}
	return child;
};
syncBuiltinESMExports();

const core = await import("@google/gemini-cli-core");
const { Config, ApprovalMode, Scheduler, DEFAULT_GEMINI_MODEL } = core;
const VERSION = JSON.parse(
	fs.readFileSync(new URL("./node_modules/@google/gemini-cli-core/package.json", import.meta.url), "utf8"),
).version;

const PROTOCOL = 1;
const CAPABILITIES = ["abort", "full-output", "process-tree"];
const SESSION = `apexcheck-${process.pid}`;

const write = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const protocolError = (id, code, message) => write({ id, type: "error", error: { code, message } });

const inflight = new Map();
let closing = false;
let nextCall = 0;

function isObject(v) {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkCall(req) {
	if (typeof req.cwd !== "string" || req.cwd === "") return "call needs cwd, a non-empty string";
	if (req.options !== undefined && !isObject(req.options)) return "options must be an object";
	for (const flag of ["updates", "evidence", "aborted"]) {
		if (req[flag] !== undefined && typeof req[flag] !== "boolean") return `${flag} must be a boolean`;
	}
	return "";
}

// configFor is the initialized Config whose workspace is cwd.
const configs = new Map();
function configFor(cwd) {
	let p = configs.get(cwd);
	if (!p) {
		const config = new Config({
			sessionId: SESSION,
			targetDir: cwd,
			cwd,
			debugMode: false,
			model: DEFAULT_GEMINI_MODEL,
			interactive: false,
			approvalMode: ApprovalMode.YOLO,
			telemetry: { enabled: false },
			usageStatisticsEnabled: false,
			enableInteractiveShell: false,
			checkpointing: false,
			noBrowser: true,
		});
		p = config.initialize().then(() => config);
		configs.set(cwd, p);
	}
	return p;
}

function execution(call) {
	if (!call.spawned) return undefined;
	const cwd = call.spawned.cwd ?? call.cwd;
	if (!call.exited || call.aborted) return { cwd, exitCode: null };
	const e = { cwd, executable: call.spawned.executable, argv: call.spawned.argv, exitCode: call.exitCode };
	if (call.spawned.signal) e.signal = call.spawned.signal;
	return e;
}

// modelText is what the model receives: the function response Gemini
// builds, {output} or {error}, as its one string; a response carrying both
// (a cancelled call keeps its output beside the error, createCancelledResult
// in scheduler/tool-executor.js) or neither is given as the JSON object the
// model receives, so nothing is dropped or invented.
function modelText(completed) {
	const response = completed?.response?.responseParts?.[0]?.functionResponse?.response ?? {};
	const keys = Object.keys(response);
	if (keys.length === 1 && typeof response.error === "string") return { isError: true, text: response.error };
	if (keys.length === 1 && typeof response.output === "string") return { isError: false, text: response.output };
	return { isError: typeof response.error === "string" || completed?.status !== "success", text: JSON.stringify(response) };
}

async function serveCall(req) {
	const call = { cwd: req.cwd, exited: false, exitCode: null, aborted: false };
	const controller = new AbortController();
	controller.signal.addEventListener("abort", () => (call.aborted = true), { once: true });
	if (req.aborted) controller.abort();
	const run = async () => {
		try {
			const config = await configFor(req.cwd);
			const scheduler = new Scheduler({
				context: config,
				schedulerId: `apexcheck-${req.id}`,
				getPreferredEditor: () => undefined,
			});
			const args = req.arguments;
			try {
				const [completed] = await scheduler.schedule(
					{
						callId: `call-${++nextCall}`,
						name: "run_shell_command",
						args,
						isClientInitiated: false,
						prompt_id: `${SESSION}-prompt`,
					},
					controller.signal,
				);
				const result = modelText(completed);
				const d = {};
				if (completed?.response?.outputFile) d.fullOutputPath = completed.response.outputFile;
				const exec = execution(call);
				if (exec) d.execution = exec;
				if (Object.keys(d).length > 0) result.details = d;
				return result;
			} finally {
				scheduler.dispose();
			}
		} catch (err) {
			const result = { isError: true, text: err instanceof Error ? err.message : String(err) };
			const exec = execution(call);
			if (exec) result.details = { execution: exec };
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
		case "hello":
			if (!Array.isArray(req.versions) || !req.versions.includes(PROTOCOL)) {
				protocolError(req.id, "unsupported", `this adapter speaks protocol ${PROTOCOL} only`);
				return;
			}
			write({
				id: req.id,
				type: "hello",
				protocol: PROTOCOL,
				implementation: {
					name: "gemini-cli-core",
					version: VERSION,
					language: "typescript",
					homepage: "https://github.com/google-gemini/gemini-cli",
				},
				capabilities: CAPABILITIES,
			});
			return;
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
		case "abort":
			inflight.get(req.target)?.controller.abort();
			write({ id: req.id, type: "abort" });
			return;
		case "render":
		case "permission":
			protocolError(req.id, "unsupported", `this adapter does not expose Gemini CLI's ${req.type} function`);
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
	if (tempHome) fs.rmSync(tempHome, { recursive: true, force: true });
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
	serve(req);
});
lines.on("close", () => shutdown(undefined));
