// Heading anchors as GitHub (and VS Code's preview) make them, used by the docs site too, so that one
// `page.md#anchor` link works on every renderer and the link check reads anchors the same way.

/** The plain text of a Markdown heading: code spans, emphasis, links and HTML tags reduced to their text. */
export function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/(\*\*|__|\*)(.+?)\1/g, "$2")
    .trim();
}

/**
 * The anchor GitHub gives a heading's text: lower case, punctuation removed (letters, digits, `_`, `-`
 * and spaces stay), each space a hyphen. `seen` counts earlier anchors of the page: a repeat gets `-1`,
 * `-2`, ... as on GitHub.
 *
 * @example
 * slugify("Truncation: `usingTruncation(options)`"); // "truncation-usingtruncationoptions"
 */
export function slugify(text: string, seen?: Map<string, number>): string {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
  if (!seen) return base;
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}
