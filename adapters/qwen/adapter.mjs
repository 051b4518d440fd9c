#!/usr/bin/env node
// apexcheck protocol adapter for Qwen Code's shell tool, run_shell_command
// (@qwen-code/qwen-code 0.24.4, pinned in package-lock.json).
//
// It speaks the kit's protocol (spec/protocol.md) on stdin/stdout and serves
// every call with Qwen Code's own ShellTool, in-process. Qwen Code ships one
// bundle: Config and ShellTool are exported by a chunk whose file name
// changes per version, so the adapter finds it through the small
// chunks/shell-*.js module that re-exports ShellTool from it. A Config is
// initialized as the non-interactive CLI does (approval mode yolo, so no
// confirmation prompt, no telemetry or usage statistics); per call the tool
// validates the arguments (build) and executes. The adapter translates and
// observes; it changes nothing in the tool:
//
//   - the kit's timeout is in seconds, Qwen's in milliseconds: a numeric
//     timeout is multiplied by 1000 (a non-number passes unchanged, for
//     Qwen's validation to answer); every other member passes unchanged;
//   - the text is what the model receives: the error's message when the
//     result carries an error ("Schedulers use error.message as the
//     model-facing response", ShellToolInvocation.execute), else llmContent;
//     isError is whether it carries one; a validation failure is an error
//     result with Qwen's message, as the scheduler reports it;
//   - the full-output file is the one the tool persisted (persistedOutputFiles);
//   - the execution facts are observed at the spawn boundary, as adapters/pi
//     does.
//
// Each distinct call cwd gets its own Config whose workspace is that
// directory, as if Qwen Code had been started there (Qwen refuses a
// directory outside its workspace). QWEN_HOME points at a temporary
// directory (removed on exit) unless already set, so nothing is written to
// ~/.qwen.
//
// Capabilities: abort (the tool takes an AbortSignal), full-output (the
// tool's truncated-output file), process-tree (spawned detached, killed by
// process group). Not declared: updates (not wired in this adapter),
// background (is_background has no retrieve or kill through this tool),
// shell-path, session-env, render, permissions, evidence, path-probe.
//
// The protocol plumbing every adapter shares (reading requests, hello,
// abort, shutdown, the spawn observation) is in ../lib/protocol.mjs.

import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import { errorResult, execution, isObject, newCall, observeSpawn, redirectConsole, serve, spawnedBy, tempHome } from "../lib/protocol.mjs";

redirectConsole(["log", "info", "warn", "debug"]);

tempHome("QWEN_HOME", "apexcheck-qwen-home-");

const callContext = new AsyncLocalStorage();
observeSpawn(callContext, { exitStatus: true });

// On Linux Qwen Code runs commands in a pseudo-terminal by default
// (shouldDefaultToNodePty), spawned by @lydell/node-pty, which it imports
// dynamically. Loading that module first and wrapping its spawn (pass-
// through) lets the same observation see the shell; the namespace Qwen's
// import gets is built from these exports.
const PACKAGE = new URL("./node_modules/@qwen-code/qwen-code/", import.meta.url);
try {
	const pty = createRequire(PACKAGE)("@lydell/node-pty");
	const realPtySpawn = pty.spawn;
	pty.spawn = function observedPtySpawn(file, args, options) {
		const proc = realPtySpawn.apply(this, arguments);
		const call = spawnedBy(callContext, file, args, options);
		if (call) {
			proc.onExit(({ exitCode, signal }) => {
				call.exited = true;
				// node-pty reports a shell killed by a signal as exit code 0
				// with the signal: such a shell has no exit status.
				call.exitCode = signal ? null : exitCode;
				if (signal) call.spawned.signal = signalName(signal);
			});
		}
		return proc;
	};
} catch {
	// No PTY module: Qwen Code falls back to child_process, observed above.
}

// signalName names a signal number as node-pty reports it.
function signalName(n) {
	return Object.entries(os.constants.signals).find(([, v]) => v === n)?.[0] ?? String(n);
}

const VERSION = JSON.parse(fs.readFileSync(new URL("package.json", PACKAGE), "utf8")).version;
const { Config, ShellTool } = await import(coreChunk());

// coreChunk is the bundle chunk that exports Config and ShellTool, found
// through chunks/shell-*.js, which imports ShellTool from it.
function coreChunk() {
	const dir = new URL("chunks/", PACKAGE);
	const shell = fs.readdirSync(dir).find((f) => /^shell-[A-Z0-9]+\.js$/.test(f));
	if (!shell) throw new Error(`no chunks/shell-*.js in ${dir.pathname}: not the Qwen Code layout this adapter knows`);
	const text = fs.readFileSync(new URL(shell, dir), "utf8");
	const m = /import\s*\{[^}]*\bShellTool\b[^}]*\}\s*from\s*"\.\/([^"]+)"/.exec(text);
	if (!m) throw new Error(`chunks/${shell} does not import ShellTool: not the Qwen Code layout this adapter knows`);
	return new URL(m[1], dir).href;
}

const SESSION = `apexcheck-${process.pid}`;
const MS_PER_SECOND = 1000;

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
			interactive: false,
			approvalMode: "yolo",
			telemetry: { enabled: false },
			usageStatisticsEnabled: false,
		});
		p = config.initialize().then(() => config);
		configs.set(cwd, p);
	}
	return p;
}

// toolArguments translates the kit's timeout (seconds) into Qwen's
// (milliseconds); everything else passes unchanged.
function toolArguments(args) {
	if (!isObject(args) || typeof args.timeout !== "number") return args;
	return { ...args, timeout: Math.round(args.timeout * MS_PER_SECOND) };
}

// modelText is what the model receives from a tool result.
function modelText(out) {
	if (out?.error) return { isError: true, text: String(out.error.message ?? "") };
	const c = out?.llmContent;
	if (typeof c === "string") return { isError: false, text: c };
	const parts = Array.isArray(c) ? c : [c];
	return { isError: false, text: parts.map((p) => (typeof p === "string" ? p : (p?.text ?? ""))).join("") };
}

// setUpCall sets up one call: a ShellTool per call, run in the call's async
// context so its spawn is observed.
function setUpCall(req) {
	const { call, controller } = newCall(req, { trackAbort: true });
	const run = async () => {
		try {
			const config = await configFor(req.cwd);
			const tool = new ShellTool(config);
			// build validates against the schema and validateToolParamValues;
			// a throw is reported to the model as an error, as the
			// scheduler does.
			const invocation = tool.build(toolArguments(req.arguments));
			const out = await invocation.execute(controller.signal, undefined);
			const result = modelText(out);
			const d = {};
			if (out?.persistedOutputFiles?.[0]) d.fullOutputPath = out.persistedOutputFiles[0];
			const exec = execution(call);
			if (exec) d.execution = exec;
			if (Object.keys(d).length > 0) result.details = d;
			return result;
		} catch (err) {
			return errorResult(err, call);
		}
	};
	return { controller, start: () => callContext.run(call, run) };
}

serve({
	implementation: {
		name: "qwen-code",
		version: VERSION,
		language: "typescript",
		homepage: "https://github.com/QwenLM/qwen-code",
	},
	capabilities: ["abort", "full-output", "process-tree"],
	call: setUpCall,
	unsupported: (type) => `this adapter does not expose Qwen Code's ${type} function`,
});
