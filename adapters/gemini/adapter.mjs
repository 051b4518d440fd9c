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
// adapter translates and observes; it changes nothing in the tool and never
// rewrites what it said (the rule is in ../README.md; translate.mjs holds the
// translation, translate.test.mjs checks it):
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
//
// The protocol plumbing every adapter shares (reading requests, hello,
// abort, shutdown, the spawn observation) is in ../lib/protocol.mjs.

import { AsyncLocalStorage } from "node:async_hooks";
import fs from "node:fs";
import { errorResult, execution, newCall, observeSpawn, redirectConsole, serve, tempHome } from "../lib/protocol.mjs";
import { fullOutputPath, modelText } from "./translate.mjs";

redirectConsole(["log", "info", "warn", "debug"]);

tempHome("GEMINI_CLI_HOME", "apexcheck-gemini-home-");

const callContext = new AsyncLocalStorage();
observeSpawn(callContext, { exitStatus: true });

const core = await import("@google/gemini-cli-core");
const { Config, ApprovalMode, Scheduler, DEFAULT_GEMINI_MODEL } = core;
const VERSION = JSON.parse(
	fs.readFileSync(new URL("./node_modules/@google/gemini-cli-core/package.json", import.meta.url), "utf8"),
).version;

const SESSION = `apexcheck-${process.pid}`;

let nextCall = 0;

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

// setUpCall sets up one call: a Scheduler per call, as Gemini CLI's agent loop
// makes, run in the call's async context so its spawn is observed.
function setUpCall(req) {
	const { call, controller } = newCall(req, { trackAbort: true });
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
				const full = fullOutputPath(completed);
				if (full) d.fullOutputPath = full;
				const exec = execution(call);
				if (exec) d.execution = exec;
				if (Object.keys(d).length > 0) result.details = d;
				return result;
			} finally {
				scheduler.dispose();
			}
		} catch (err) {
			return errorResult(err, call);
		}
	};
	return { controller, start: () => callContext.run(call, run) };
}

serve({
	implementation: {
		name: "gemini-cli-core",
		version: VERSION,
		language: "typescript",
		homepage: "https://github.com/google-gemini/gemini-cli",
	},
	capabilities: ["abort", "full-output", "process-tree"],
	call: setUpCall,
	unsupported: (type) => `this adapter does not expose Gemini CLI's ${type} function`,
});
