package openai

// readWindows decodes the window cache's file as json.Unmarshal would
// into a map[string]windowEntry, without encoding/json: the cache is read
// at every start of `agent-lsp run`, before its first request, and
// encoding/json's first decode of a type there cost about 0.1 ms. It
// takes what the cache writes (an object of objects of strings, integers,
// booleans and nulls, field names exact) and reports !ok for anything
// else, a broken or hand-edited file included; the caller then decodes
// with encoding/json. FuzzReadWindows holds the two to the same result.
func readWindows(data []byte) (map[string]windowEntry, bool) {
	r := &jsonReader{b: data}
	if r.word("null") {
		return nil, r.end()
	}
	if !r.byte('{') {
		return nil, false
	}
	m := map[string]windowEntry{}
	if r.byte('}') {
		return m, r.end()
	}
	for {
		key, ok := r.str()
		if !ok || !r.byte(':') {
			return nil, false
		}
		var e windowEntry
		if !r.word("null") { // null leaves the zero entry, as json does
			if e, ok = r.entry(); !ok {
				return nil, false
			}
		}
		m[key] = e
		if r.byte('}') {
			return m, r.end()
		}
		if !r.byte(',') {
			return nil, false
		}
	}
}

// entry reads one windowEntry object.
func (r *jsonReader) entry() (windowEntry, bool) {
	var e windowEntry
	if !r.byte('{') {
		return e, false
	}
	if r.byte('}') {
		return e, true
	}
	for {
		name, ok := r.str()
		if !ok || !r.byte(':') {
			return e, false
		}
		if !r.word("null") { // null leaves the field as it is, as json does
			switch name {
			case "tokens":
				e.Tokens, ok = r.int()
			case "native":
				e.Native, ok = r.int()
			case "noWindow":
				e.NoWindow, ok = r.bool()
			case "probed":
				// time.Time parses the string as it stands in the file,
				// escapes and all: one it refuses goes to json.
				var raw []byte
				if raw, ok = r.rawStr(); ok {
					ok = e.Probed.UnmarshalText(raw) == nil
				}
			case "source":
				e.Source, ok = r.str()
			case "server":
				var s string
				s, ok = r.str()
				e.Server = ServerKind(s)
			case "tools":
				var s string
				s, ok = r.str()
				e.Tools = Support(s)
			default:
				// json matches names without regard to case and skips
				// unknown ones with any value: leave both to it.
				return e, false
			}
			if !ok {
				return e, false
			}
		}
		if r.byte('}') {
			return e, true
		}
		if !r.byte(',') {
			return e, false
		}
	}
}
