#!/usr/bin/env node
// apexcheck protocol adapter for Qwen Code's shell tool, run_shell_command
// (@qwen-code/qwen-code 0.24.4, pinned in package-lock.json).
//
// It speaks the kit's protocol (spec/protocol.md) on stdin/stdout and serves
// every call the way Qwen Code's own non-interactive agent serves a model's
// tool call: executeToolCall (packages/core/src/core/nonInteractiveToolExecutor.ts),
// which runs the call through Qwen's CoreToolScheduler, in-process. The
// scheduler validates the arguments, runs ShellTool and builds the response
// the model receives: the output, an error, "[Operation Cancelled] …" for an
// abort (createCancelledResponse), the output produced before a timeout
// (convertToFunctionErrorResponse). Qwen Code ships one bundle whose chunk
// names change per version: the adapter finds Config through the small
// chunks/shell-*.js module that re-exports ShellTool from the core chunk,
// and executeToolCall by its source path in the bundle. A Config is
// initialized as the non-interactive CLI does (approval mode yolo, so no
// confirmation prompt, no telemetry or usage statistics). The adapter
// translates and observes; it never rewrites what Qwen said (the rule is in
// ../README.md; translate.mjs holds the translations, translate.test.mjs
// checks them):
//
//   - the kit's timeout is in seconds, Qwen's in milliseconds: a numeric
//     timeout is multiplied by 1000 (a non-number passes unchanged, for
//     Qwen's validation to answer); every other member passes unchanged;
//   - the text is what the model receives: the output or error member of
//     the function response the scheduler builds; isError is whether it is
//     an error;
//   - the full-output file is the one the scheduler's response names
//     (persistedOutputFiles);
//   - the execution facts are observed at the spawn boundary, as adapters/pi
//     does, as node-pty or child_process report them.
//
// Each distinct call cwd gets its own Config whose workspace is that
// directory, as if Qwen Code had been started there (Qwen refuses a
// directory outside its workspace). QWEN_HOME points at a temporary
// directory (removed on exit) unless already set, so nothing is written to
// ~/.qwen.
//
// Capabilities: abort (the scheduler takes an AbortSignal), full-output (the
// tool's persisted output file), process-tree (spawned detached, killed by
// process group). Not declared: updates (not wired in this adapter),
// background (is_background has no retrieve or kill through this tool),
// shell-path, session-env, render, permissions, evidence, path-probe.
//
// The protocol plumbing every adapter shares (reading requests, hello,
// abort, shutdown, the spawn observation) is in ../lib/protocol.mjs.

import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import { createRequire } from "node:module";
import v8 from "node:v8";
import { errorResult, execution, newCall, observeSpawn, redirectConsole, serve, spawnedBy, tempHome } from "../lib/protocol.mjs";
import { fullOutputPath, modelText, recordPtyExit, toolArguments } from "./translate.mjs";

// WebAssembly runs on V8's baseline compiler only. Qwen's scheduler loads
// WebAssembly modules (tree-sitter, for parsing commands), and V8 tiers
// their hot functions up on a background thread; Node's exit joins that
// thread (NodePlatform::Shutdown), so an exit right after a cancelled call
// waited for an optimizing compile: tens of seconds on a loaded machine,
// past the kit's bound on shutdown. Tiering is V8's, not Qwen's, and changes
// no result; set before Qwen's code loads.
v8.setFlagsFromString("--liftoff-only");

redirectConsole(["log", "info", "warn", "debug"]);

tempHome("QWEN_HOME", "apexcheck-qwen-home-");

const callContext = new AsyncLocalStorage();
// Qwen's scheduler holds a sleep inhibitor while a tool runs
// (acquireSleepInhibitor: systemd-inhibit … sleep infinity, spawned before
// the shell); it is not the command's shell.
observeSpawn(callContext, { exitStatus: true, ignore: (file) => file === "systemd-inhibit" });

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
			proc.onExit((e) => recordPtyExit(call, e));
		}
		return proc;
	};
} catch {
	// No PTY module: Qwen Code falls back to child_process, observed above.
}

const VERSION = JSON.parse(fs.readFileSync(new URL("package.json", PACKAGE), "utf8")).version;
const { Config } = await import(coreChunk());
const { executeToolCall } = await import(executorChunk());

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

// executorChunk is the bundle chunk of nonInteractiveToolExecutor.ts, which
// exports executeToolCall, the function the non-interactive CLI runs each
// tool call with.
function executorChunk() {
	const dir = new URL("chunks/", PACKAGE);
	const marker = "// packages/core/src/core/nonInteractiveToolExecutor.ts";
	for (const f of fs.readdirSync(dir)) {
		if (!f.endsWith(".js")) continue;
		const text = fs.readFileSync(new URL(f, dir), "utf8");
		if (text.includes(marker) && /export\s*\{[^}]*\bexecuteToolCall\b/.test(text)) return new URL(f, dir).href;
	}
	throw new Error(`no chunk of nonInteractiveToolExecutor.ts exporting executeToolCall in ${dir.pathname}: not the Qwen Code layout this adapter knows`);
}

const SESSION = `apexcheck-${process.pid}`;
const TOOL = "run_shell_command";
let calls = 0;

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

// setUpCall sets up one call: run by executeToolCall in the call's async
// context, so its spawn is observed.
function setUpCall(req) {
	const { call, controller } = newCall(req, { trackAbort: true });
	const run = async () => {
		try {
			const config = await configFor(req.cwd);
			const request = {
				callId: `apexcheck-${++calls}`,
				name: TOOL,
				args: toolArguments(req.arguments),
				isClientInitiated: false,
				prompt_id: SESSION,
			};
			// recordToolResult false, as the non-interactive CLI runs it.
			const response = await executeToolCall(config, request, controller.signal, { recordToolResult: false });
			const result = modelText(response);
			const d = {};
			const full = fullOutputPath(response);
			if (full) d.fullOutputPath = full;
			const exec = execution(call);
			if (exec) d.execution = exec;
			if (Object.keys(d).length > 0) result.details = d;
			return result;
		} catch (err) {
			// executeToolCall rejects only when the scheduler itself fails;
			// reported as an agent loop reports a throw.
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
