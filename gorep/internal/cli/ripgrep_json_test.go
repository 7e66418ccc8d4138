package cli

// --json checked against ripgrep's --json on the same tree, record for record, once the
// timing fields are dropped.

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// jsonRecords parses JSON Lines, dropping the fields that time the search and those
// named in drop (keys of a record's "stats").
func jsonRecords(t *testing.T, out string, drop ...string) []map[string]any {
	t.Helper()
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		data, _ := r["data"].(map[string]any)
		delete(data, "elapsed_total")
		if stats, ok := data["stats"].(map[string]any); ok {
			delete(stats, "elapsed")
			for _, k := range drop {
				delete(stats, k)
			}
		}
		records = append(records, r)
	}
	return records
}

// sameJSONAsRipgrep: gorep --json --sort path ARGS writes ripgrep's records.
func sameJSONAsRipgrep(t *testing.T, dir, stdin string, args []string, drop ...string) {
	t.Helper()
	want, wantStatus := ripgrep(t, dir, stdin, append([]string{"--json", "--sort", "path"}, args...)...)
	got, stderr, status := gorepInput(t, dir, stdin, append([]string{"--json", "--sort", "path"}, args...)...)
	if status != wantStatus || !reflect.DeepEqual(jsonRecords(t, got, drop...), jsonRecords(t, want, drop...)) {
		t.Errorf("gorep --json %q: status %d, stderr %q\n%s\nripgrep: status %d\n%s", args, status, stderr, got,
			wantStatus, want)
	}
}

// jsonText holds what a JSON record must escape, lines that are not UTF-8, a last line
// without its '\n', and the encodings ripgrep decodes.
var jsonText = map[string]string{
	"a.txt":       "alpha beta\nBeta gamma\nalpha\n\nfoo-bar foo\n",
	"b.txt":       "gamma\nalpha x",
	"esc.txt":     "alpha \"q\" \\ \t\x01\x1f <b> & \u2028 é\r\n",
	"bad.txt":     "bad \xff alpha\n",
	"sub/c.txt":   "nothing to see\nALPHA\n",
	"u16le.txt":   "\xff\xfeh\x00i\x00 \x00a\x00l\x00p\x00h\x00a\x00\n\x00",
	"bom8.txt":    "\xef\xbb\xbfalpha\n",
	"new\nline":   "alpha\n",
	"bad\xffname": "alpha\n",
}

func TestJSONEqualsRipgrep(t *testing.T) {
	dir := tree(t, jsonText)
	for _, c := range [][]string{
		{"alpha"},
		{"-i", "alpha"},
		{"-e", "alpha", "-e", "gamma"},
		{"-w", "foo"},
		{"-C1", "gamma"},
		{"-A1", "-B2", "foo"},
		{"-v", "a"},
		{"-C1", "-v", "a"}, // the context lines are the matching ones: their submatches listed
		{"x*", "a.txt"},    // empty matches
		{"a|", "b.txt"},
		{"-o", "alpha"}, // ignored, as by ripgrep
		{"nothing matches this"},
		{"-F", "<b> &"},
		{`\xff|alpha`, "bad.txt"},
	} {
		sameJSONAsRipgrep(t, dir, os.DevNull, c)
	}
	// -m stops the search: ripgrep's bytes_searched is then where its buffer or map was.
	sameJSONAsRipgrep(t, dir, os.DevNull, []string{"-m1", "alpha"}, "bytes_searched")
	sameJSONAsRipgrep(t, dir, os.DevNull, []string{"-m1", "-A1", "alpha"}, "bytes_searched")
}

func TestJSONOfStandardInput(t *testing.T) {
	dir := tree(t, jsonText)
	sameJSONAsRipgrep(t, dir, dir+"/a.txt", []string{"alpha"})
	sameJSONAsRipgrep(t, dir, dir+"/u16le.txt", []string{"alpha", "-", "b.txt"})
}

func TestJSONExcludesSummaries(t *testing.T) {
	for _, flag := range []string{"-c", "-l", "--files-without-match", "--files"} {
		if _, stderr, status := gorep(t, t.TempDir(), "--json", flag, "x"); status != HadErrors || stderr == "" {
			t.Errorf("--json %s: status %d, stderr %q (want a usage error, as ripgrep)", flag, status, stderr)
		}
	}
}
