// The translation of adapters/gemini, with no side effect on import, so
// that translate.test.mjs can feed it known results: what the model
// receives from the completed call Gemini CLI's scheduler returns. Nothing
// here rewrites what Gemini said.

/**
 * modelText is what the model receives: the function response Gemini
 * builds, {output} or {error}, as its one string; a response carrying both
 * (a cancelled call keeps its output beside the error, createCancelledResult
 * in scheduler/tool-executor.js) or neither is given as the JSON object the
 * model receives, so nothing is dropped or invented.
 */
export function modelText(completed) {
	const response = completed?.response?.responseParts?.[0]?.functionResponse?.response ?? {};
	const keys = Object.keys(response);
	if (keys.length === 1 && typeof response.error === "string") return { isError: true, text: response.error };
	if (keys.length === 1 && typeof response.output === "string") return { isError: false, text: response.output };
	return { isError: typeof response.error === "string" || completed?.status !== "success", text: JSON.stringify(response) };
}

/** fullOutputPath is the full-output file the scheduler names, or undefined. */
export function fullOutputPath(completed) {
	return completed?.response?.outputFile || undefined;
}
