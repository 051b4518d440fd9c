// Fails if adapters/pi alters a result it received: each case is a result
// as pi's bash tool returns it, and the text must be the text the model
// receives, byte for byte, the details pi's own.
// Run: node --test adapters/ (go test . runs it where node is installed).

import assert from "node:assert/strict";
import { test } from "node:test";
import { details, textOf } from "./translate.mjs";

test("the model's text passes unchanged", () => {
	const texts = ["hi\n", "", "  a\r\n\tb\u0000\n\n", "started\n\nCommand aborted", "x\n\n[Showing lines 1-2000 of 5000. Full output: /tmp/pi-bash-1.log]"];
	for (const t of texts) assert.equal(textOf([{ type: "text", text: t }]), t);
	// Several text parts are joined as they are; an image part is no text.
	assert.equal(textOf([{ type: "text", text: "a" }, { type: "image", data: "…" }, { type: "text", text: "b" }]), "ab");
	assert.equal(textOf(undefined), "");
});

test("details keep pi's truncation and full-output file as pi gave them", () => {
	const t = { content: "cut", truncated: true, truncatedBy: "lines", totalLines: 5000, totalBytes: 90000, outputLines: 2000, outputBytes: 36000, lastLinePartial: false, firstLineExceedsLimit: false, maxLines: 2000, maxBytes: 51200 };
	const exec = { cwd: "/w", executable: "/bin/bash", argv: ["-c", "x"], exitCode: 0 };
	const d = details({ truncation: t, fullOutputPath: "/tmp/pi-bash-1.log" }, exec);
	assert.deepEqual(d, {
		truncation: { truncated: true, truncatedBy: "lines", totalLines: 5000, totalBytes: 90000, outputLines: 2000, outputBytes: 36000, lastLinePartial: false, maxLines: 2000, maxBytes: 51200 },
		fullOutputPath: "/tmp/pi-bash-1.log",
		execution: exec,
	});
	assert.equal(details(undefined, undefined), undefined);
});
