// The translations of adapters/pi, with no side effect on import, so that
// translate.test.mjs can feed them known results: the text the model
// receives from a result of pi's bash tool, and the details the protocol
// defines. Nothing here rewrites what pi said.

/**
 * textOf is what the model receives of a tool result's content: its text
 * parts, joined as pi's agent loop sends them.
 */
export function textOf(content) {
	if (!Array.isArray(content)) return "";
	return content
		.filter((part) => part?.type === "text")
		.map((part) => part.text)
		.join("");
}

// truncationKeys are the members the protocol defines (PROTO-8); pi's
// TruncationResult also carries the truncated content itself and a
// head-truncation flag, which the model never sees.
const truncationKeys = ["truncated", "truncatedBy", "totalLines", "totalBytes", "outputLines", "outputBytes", "lastLinePartial", "maxLines", "maxBytes"];

/** truncation keeps the members of pi's TruncationResult the protocol defines, each as pi gave it (null when absent). */
export function truncation(t) {
	return Object.fromEntries(truncationKeys.map((k) => [k, t[k] ?? null]));
}

/** details is the protocol's details of a result: pi's truncation and full-output file, and the execution facts observed. */
export function details(toolDetails, exec) {
	const d = {};
	if (toolDetails?.truncation) d.truncation = truncation(toolDetails.truncation);
	if (toolDetails?.fullOutputPath) d.fullOutputPath = toolDetails.fullOutputPath;
	if (exec) d.execution = exec;
	return Object.keys(d).length > 0 ? d : undefined;
}
