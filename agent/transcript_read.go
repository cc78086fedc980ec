package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
)

// ReadTranscript reads every record of a transcript. Lines that are cut
// or not JSON (a crash while writing, a disk that lost a block) are
// skipped and reported by damaged: the session must still load. Only an
// unreadable file is an error.
func ReadTranscript(path string) (recs []Record, damaged bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil || rec.Type == "" {
			damaged = true
			continue
		}
		recs = append(recs, rec)
	}
	return recs, damaged, nil
}

// errNoHeader marks a file that is not a transcript.
var errNoHeader = errors.New("not an agent-lsp transcript (no session header)")

// scanHeader reads the first line of a transcript.
func scanHeader(path string) (Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return Record{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	if !sc.Scan() {
		return Record{}, errNoHeader
	}
	var rec Record
	if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Type != recSession {
		return Record{}, errNoHeader
	}
	return rec, nil
}
