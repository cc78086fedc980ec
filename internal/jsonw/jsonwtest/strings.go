// Package jsonwtest holds the texts the tests of hand-written JSON
// encoders run through both their encoder and encoding/json.
package jsonwtest

import "strings"

// Strings are texts whose escaping differs between careless encoders:
// quotes, backslashes, control characters, HTML characters, U+2028 and
// U+2029, invalid UTF-8, multi-byte runes at the end.
var Strings = []string{
	"", " ", "plain", `say "hi" \ back\slash`, "tab\tnew\nline\rret\bback\fform",
	"\x00\x01\x1f\x7f", "<script>&amp;</script>", "line\u2028sep\u2029para", "bad \xff\xfe utf8 \xc3",
	"emoji 😀 and ü", "ends in é", "{\"json\": [1, 2]}", strings.Repeat("long ", 400),
}
