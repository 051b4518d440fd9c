#!/usr/bin/env node
// apexcheck protocol adapter for pi's bash tool (@mariozechner/pi-coding-agent).
//
// It speaks the apexcheck wire protocol (spec/protocol.md) on stdin/stdout and
// serves each `call` the way pi's agent loop serves a model's tool call:
// prepareArguments (if the tool has one), validateToolArguments from
// @mariozechner/pi-ai, then the tool's execute(). A thrown error becomes an
// error result whose text is the error message, exactly as the agent loop's
// createErrorToolResult does. Nothing in pi's behaviour is changed and nothing
// it said is rewritten (the rule is in ../README.md; translate.mjs holds the
// translations, translate.test.mjs checks them): the adapter only
// translates, and observes the execution boundary (which shell was spawned
// with which arguments, and how it ended) to report execution facts.
//
// Capabilities declared are only those pi 0.73.1 has: abort (an AbortSignal),
// updates (onUpdate), full-output (the accumulator's temp file), process-tree
// (detached spawn and process-group kill), shell-path (the shellPath option)
// and render (the tool definition's renderCall, with its styling stripped).
// Not declared: background, permissions, path-probe, session-env, evidence.
//
// The protocol plumbing every adapter shares (reading requests, hello,
// abort, shutdown, the spawn observation) is in ../lib/protocol.mjs.

import { AsyncLocalStorage } from "node:async_hooks";
import { stripVTControlCharacters } from "node:util";
import { errorResult, execution, newCall, observeSpawn, redirectConsole, serve, write } from "../lib/protocol.mjs";
import { details, textOf } from "./translate.mjs";

// Anything pi or its dependencies print with console.log goes to stderr.
redirectConsole(["log", "info"]);

// Observe every shell pi spawns, attributing it to the call in whose async
// context it happens; its exit code comes from pi's backend (operations
// below), so only its signal is taken from the spawn.
const callContext = new AsyncLocalStorage();
observeSpawn(callContext, { exitStatus: false });

const pi = await import("@mariozechner/pi-coding-agent");
const { validateToolArguments } = await import("@mariozechner/pi-ai");

// checkOptions rejects pi's call options of the wrong JSON type (PROTO-15).
function checkOptions(o) {
	if (o.commandPrefix !== undefined && typeof o.commandPrefix !== "string") return "options.commandPrefix must be a string";
	if (o.shellPath !== undefined && typeof o.shellPath !== "string") return "options.shellPath must be a string";
	return "";
}

// setUpCall sets up one call: pi's bash tool made for it, run in the call's
// async context so its spawn is observed.
function setUpCall(req) {
	const { call, controller } = newCall(req, { trackAbort: false });
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
				if (!server.inFlight(req.id)) return;
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
			return errorResult(err, call);
		}
	};
	return { controller, start: () => callContext.run(call, run) };
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

const server = serve({
	implementation: {
		name: "pi-coding-agent",
		version: pi.VERSION,
		language: "typescript",
		homepage: "https://github.com/badlogic/pi-mono",
	},
	capabilities: ["abort", "full-output", "process-tree", "render", "shell-path", "updates"],
	checkOptions,
	call: setUpCall,
	render: (req) => write({ id: req.id, type: "render", header: renderHeader(req.arguments) }),
	unsupported: (type) => `pi's bash tool has no ${type} function this adapter exposes`,
});
