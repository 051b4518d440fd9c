// Fails if adapters/gemini alters a result it received: each case is a
// completed call as Gemini CLI's scheduler returns it, and the text must be
// the string the model receives, byte for byte.
// Run: node --test adapters/ (go test . runs it where node is installed).

import assert from "node:assert/strict";
import { test } from "node:test";
import { fullOutputPath, modelText } from "./translate.mjs";

// completed builds a completed call of one function response part.
const completed = (status, body, extra = {}) => ({
	status,
	response: { callId: "c", responseParts: [{ functionResponse: { id: "c", name: "run_shell_command", response: body } }], ...extra },
});

test("the model's text passes unchanged", () => {
	const cases = [
		{ name: "output", status: "success", body: { output: "Output: hi\nExit Code: 3" }, isError: false },
		{ name: "error", status: "error", body: { error: "Command was cancelled by user before it could complete." }, isError: true },
		{ name: "whitespace and control bytes", status: "success", body: { output: "  a\r\n\tb\u0000\n\n" }, isError: false },
		{ name: "empty", status: "success", body: { output: "" }, isError: false },
	];
	for (const c of cases) {
		const got = modelText(completed(c.status, c.body));
		assert.equal(got.text, c.body.output ?? c.body.error, c.name);
		assert.equal(got.isError, c.isError, c.name);
	}
});

test("a response the model reads whole is given whole", () => {
	const body = { output: "started", error: "[Operation Cancelled] Reason: User cancelled the operation." };
	const got = modelText(completed("cancelled", body));
	assert.deepEqual(JSON.parse(got.text), body);
	assert.equal(got.isError, true);
});

test("the full-output file is the one the scheduler names", () => {
	assert.equal(fullOutputPath(completed("success", { output: "x" }, { outputFile: "/tmp/full" })), "/tmp/full");
	assert.equal(fullOutputPath(completed("success", { output: "x" })), undefined);
});
