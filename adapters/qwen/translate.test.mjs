// Fails if adapters/qwen alters a result it received: each case is a
// response as Qwen Code's scheduler builds it (functionResponse parts),
// and the text must be the string the model receives, byte for byte.
// Run: node --test adapters/ (go test . runs it where node is installed).

import assert from "node:assert/strict";
import { test } from "node:test";
import { fullOutputPath, modelText, recordPtyExit, toolArguments } from "./translate.mjs";

// response builds a scheduler response of one function response part.
const response = (body, extra = {}) => ({
	callId: "c",
	responseParts: [{ functionResponse: { id: "c", name: "run_shell_command", response: body } }],
	...extra,
});

test("the model's text passes unchanged", () => {
	const cases = [
		{ name: "output", body: { output: "Command: x\nOutput: hi\nExit Code: 0\nSignal: (none)" }, isError: false },
		{ name: "signal death as Qwen says it", body: { output: "Output: dying\nExit Code: 0\nSignal: 9" }, isError: false },
		{ name: "cancelled", body: { error: "[Operation Cancelled] Reason: Tool call cancelled by user." }, isError: true },
		{ name: "timeout keeps output", body: { error: "Command timed out after 1000ms before it could complete. Below is the output before it timed out:\nbefore-42" }, isError: true },
		{ name: "validation", body: { error: "params/command must be string" }, isError: true },
		{ name: "whitespace and control bytes", body: { output: "  a\r\n\tb\u0000\n\n" }, isError: false },
		{ name: "empty output", body: { output: "" }, isError: false },
	];
	for (const c of cases) {
		const got = modelText(response(c.body));
		assert.equal(got.text, c.body.output ?? c.body.error, c.name);
		assert.equal(got.isError, c.isError, c.name);
	}
});

test("a response the model reads whole is given whole", () => {
	const body = { output: "partial", error: "cancelled" };
	assert.deepEqual(JSON.parse(modelText(response(body)).text), body);
	assert.equal(modelText(response(body)).isError, true);
	const two = { callId: "c", responseParts: [response({ output: "a" }).responseParts[0], response({ output: "b" }).responseParts[0]] };
	assert.deepEqual(JSON.parse(modelText(two).text), [{ output: "a" }, { output: "b" }]);
});

test("the full-output file is the one the response names", () => {
	assert.equal(fullOutputPath(response({ output: "x" }, { persistedOutputFiles: ["/tmp/a", "/tmp/b"] })), "/tmp/a");
	assert.equal(fullOutputPath(response({ output: "x" })), undefined);
});

test("node-pty's exit is recorded as node-pty reported it", () => {
	const killed = { spawned: {} };
	recordPtyExit(killed, { exitCode: 0, signal: 9 });
	assert.equal(killed.exitCode, 0, "a killed shell's exit code 0 must not be rewritten");
	assert.equal(killed.spawned.signal, "SIGKILL");
	const exited = { spawned: {} };
	recordPtyExit(exited, { exitCode: 3, signal: 0 });
	assert.equal(exited.exitCode, 3);
	assert.equal(exited.spawned.signal, undefined);
});

test("arguments: only the timeout's unit changes", () => {
	const args = { command: "echo hi", timeout: 1.5, is_background: false, extra: [1] };
	assert.deepEqual(toolArguments(args), { command: "echo hi", timeout: 1500, is_background: false, extra: [1] });
	assert.deepEqual(toolArguments({ command: "x", timeout: "1" }), { command: "x", timeout: "1" });
	assert.equal(toolArguments("not an object"), "not an object");
});
