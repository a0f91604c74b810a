package main

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
)

var (
	// inlineLink matches the target of [text](target) and ![alt](target),
	// an optional "title" after it.
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink matches a reference definition: [label]: target.
	refLink = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)`)
	// htmlLink matches an HTML attribute naming a target.
	htmlLink = regexp.MustCompile(`\b(?:href|src)="([^"]+)"`)
	// htmlAnchor matches an HTML anchor's name.
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
	// heading matches an ATX heading.
	heading = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$`)
	// scheme matches a target that is not relative: https:, mailto:, ...
	scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:|^//`)
	// linkText matches a link in a heading, to keep its text.
	linkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// checkLinks returns a problem for each relative link of the documents
// whose file is not tracked (nor a directory of tracked files), or whose
// #anchor is not a heading or HTML anchor of the Markdown file it names.
func checkLinks(docs []document, tracked []string) []string {
	files, dirs := map[string]bool{}, map[string]bool{".": true}
	for _, f := range tracked {
		files[f] = true
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	anchors := map[string]map[string]bool{}
	for _, d := range docs {
		anchors[d.name] = anchorsOf(withoutBlocks(d))
	}
	var problems []string
	for _, d := range docs {
		text := blankCodeSpans(withoutBlocks(d))
		for _, re := range []*regexp.Regexp{inlineLink, refLink, htmlLink} {
			for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
				target := text[m[2]:m[3]]
				line := 1 + strings.Count(text[:m[2]], "\n")
				if msg := broken(d.name, target, files, dirs, anchors); msg != "" {
					problems = append(problems, fmt.Sprintf("%s:%d: %s", d.name, line, msg))
				}
			}
		}
	}
	return problems
}

// broken says what is wrong with a link to target from the document
// named from, or returns "".
func broken(from, target string, files, dirs map[string]bool, anchors map[string]map[string]bool) string {
	if scheme.MatchString(target) {
		return ""
	}
	file, frag, _ := strings.Cut(target, "#")
	file, err := url.PathUnescape(file)
	if err != nil {
		return fmt.Sprintf("the link %q is not a valid path", target)
	}
	name := from
	if file != "" {
		if strings.HasPrefix(file, "/") {
			name = path.Clean(strings.TrimPrefix(file, "/"))
		} else {
			name = path.Join(path.Dir(from), file)
		}
		if !files[name] && !dirs[strings.TrimSuffix(name, "/")] {
			return fmt.Sprintf("the link %q leads to %s, which is not in the repository", target, name)
		}
	}
	if frag == "" {
		return ""
	}
	set, ok := anchors[name]
	if !ok {
		return "" // not a Markdown document: GitHub's #L12 line anchors and the like
	}
	if !set[frag] {
		return fmt.Sprintf("the link %q leads to no heading #%s in %s", target, frag, name)
	}
	return ""
}

// anchorsOf returns the anchors of a document's headings, as GitHub makes
// them (lower case, punctuation dropped, spaces as hyphens, a repeated one
// numbered from -1), and of its HTML anchors.
func anchorsOf(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for line := range strings.SplitSeq(text, "\n") {
		if m := htmlAnchor.FindAllStringSubmatch(line, -1); m != nil {
			for _, a := range m {
				out[a[1]] = true
			}
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := slugify(m[1])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// slugify turns a heading's Markdown into its GitHub anchor.
func slugify(h string) string {
	h = linkText.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' || r == '-':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// withoutBlocks returns a document's text with its fenced blocks blanked
// out (newlines kept, so that offsets still give lines): headings are only
// looked for in what remains, and links also outside code spans.
func withoutBlocks(d document) string {
	lines := strings.SplitAfter(d.text, "\n")
	for _, b := range d.blocks {
		n := strings.Count(b.Text, "\n") + 2 // the fences
		for i := b.Line - 1; i < b.Line-1+n && i < len(lines); i++ {
			lines[i] = "\n"
		}
	}
	return strings.Join(lines, "")
}

// blankCodeSpans replaces each code span (a run of backticks, text, and a
// run of as many, within a paragraph) with spaces, newlines kept.
func blankCodeSpans(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		end := closingRun(b, i+n, n)
		if end < 0 {
			i += n
			continue
		}
		for j := i; j < end+n; j++ {
			if b[j] != '\n' {
				b[j] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

// closingRun returns where, from start, the next run of exactly n
// backticks begins before a blank line, or -1.
func closingRun(b []byte, start, n int) int {
	for j := start; j < len(b); {
		if b[j] == '\n' && j+1 < len(b) && b[j+1] == '\n' {
			return -1
		}
		if b[j] != '`' {
			j++
			continue
		}
		k := 0
		for j+k < len(b) && b[j+k] == '`' {
			k++
		}
		if k == n {
			return j
		}
		j += k
	}
	return -1
}
