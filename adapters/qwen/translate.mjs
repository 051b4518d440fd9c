// The translations of adapters/qwen, with no side effect on import, so
// that translate.test.mjs can feed them known results: what the model
// receives from the response Qwen Code's scheduler builds, and the call's
// arguments in Qwen's units. Nothing here rewrites what Qwen said.

import os from "node:os";
import { isObject } from "../lib/protocol.mjs";

/** MS_PER_SECOND converts the kit's timeout (seconds) into Qwen's (milliseconds). */
export const MS_PER_SECOND = 1000;

/**
 * toolArguments translates the kit's timeout (seconds) into Qwen's
 * (milliseconds); a non-number passes unchanged, for Qwen's validation to
 * answer, and so does every other member.
 */
export function toolArguments(args) {
	if (!isObject(args) || typeof args.timeout !== "number") return args;
	return { ...args, timeout: Math.round(args.timeout * MS_PER_SECOND) };
}

/**
 * modelText is what the model receives from the scheduler's response (a
 * ToolCallResponseInfo): the response member of the function response
 * part the agent sends back. A response of one string member is that
 * string: `output` for a result, `error` for an error, a cancellation
 * ("[Operation Cancelled] …", createCancelledResponse) or a timeout
 * (convertToFunctionErrorResponse); isError is whether the model is told
 * of an error. Anything else is given whole, as JSON, so that nothing the
 * model would read is dropped.
 */
export function modelText(response) {
	const parts = (response?.responseParts ?? []).filter((p) => p?.functionResponse);
	const bodies = parts.map((p) => p.functionResponse.response ?? {});
	const isError = bodies.some((b) => b.error !== undefined);
	if (bodies.length === 1) {
		const keys = Object.keys(bodies[0]);
		if (keys.length === 1 && typeof bodies[0].error === "string") return { isError, text: bodies[0].error };
		if (keys.length === 1 && typeof bodies[0].output === "string") return { isError, text: bodies[0].output };
	}
	return { isError, text: JSON.stringify(bodies.length === 1 ? bodies[0] : bodies) };
}

/** fullOutputPath is the file the scheduler's response says holds the full output, or undefined. */
export function fullOutputPath(response) {
	return response?.persistedOutputFiles?.[0];
}

/**
 * recordPtyExit records on call how node-pty reported its shell's end, as
 * it reported it: a shell killed by a signal is exit code 0 with the
 * signal, which is also what Qwen's own text says ("Exit Code: 0"); the
 * adapter does not correct it.
 */
export function recordPtyExit(call, { exitCode, signal }) {
	call.exited = true;
	call.exitCode = exitCode;
	if (signal) call.spawned.signal = signalName(signal);
}

// signalName names a signal number as node-pty reports it.
function signalName(n) {
	return Object.entries(os.constants.signals).find(([, v]) => v === n)?.[0] ?? String(n);
}
