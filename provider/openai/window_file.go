package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// decodeWindows reads the window cache's file into m: what json.Unmarshal
// into a map[string]windowEntry gives, field by field (FuzzDecodeWindows
// holds the two together), without building windowEntry's decoder by
// reflection, which cost each start about 0.05 ms before its first
// request (BenchmarkOneTurn). The one difference is a file holding null:
// it leaves m empty, where json.Unmarshal made the map nil, on which the
// next probe's write panicked.
func decodeWindows(data []byte, m map[string]windowEntry) {
	if !json.Valid(data) {
		return // json.Unmarshal checks the whole text first
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return // not an object: json.Unmarshal stores nothing either
	}
	for dec.More() {
		tok, _ := dec.Token()
		key, _ := tok.(string)
		var raw json.RawMessage
		var e windowEntry
		if dec.Decode(&raw) != nil || !decodeWindowEntry(raw, &e) {
			return // json.Unmarshal stops at the first time it cannot read
		}
		m[key] = e
	}
}

// decodeWindowEntry reads one entry (any JSON value) into e: anything but
// an object is a zero entry, a field of the wrong type stays zero, as
// with json.Unmarshal; a "probed" that is not a time is false, as
// time.Time's UnmarshalJSON's error stops json.Unmarshal.
func decodeWindowEntry(raw []byte, e *windowEntry) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return true
	}
	var skip json.RawMessage
	for dec.More() {
		tok, _ := dec.Token()
		name, _ := tok.(string)
		var err error
		switch windowField(name) {
		case "tokens":
			err = dec.Decode(&e.Tokens)
		case "probed":
			err = dec.Decode(&e.Probed)
		case "source":
			err = dec.Decode(&e.Source)
		case "server":
			err = dec.Decode(&e.Server)
		case "native":
			err = dec.Decode(&e.Native)
		case "tools":
			err = dec.Decode(&e.Tools)
		case "noWindow":
			err = dec.Decode(&e.NoWindow)
		default:
			err = dec.Decode(&skip)
		}
		if err != nil && !errors.As(err, new(*json.UnmarshalTypeError)) {
			return false
		}
	}
	return true
}

// windowField is the field of windowEntry a key names: encoding/json
// takes the exact name, else one equal under Unicode case folding.
func windowField(key string) string {
	names := [...]string{"tokens", "probed", "source", "server", "native", "tools", "noWindow"}
	for _, n := range names {
		if key == n {
			return n
		}
	}
	for _, n := range names {
		if strings.EqualFold(key, n) {
			return n
		}
	}
	return ""
}
