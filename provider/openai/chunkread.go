package openai

import "encoding/json"

// readChunk decodes one chunk of the stream into c as json.Unmarshal
// would, without encoding/json: every chunk of every reply is decoded,
// the first on the way to the first token. It takes the chunks servers
// send (unknown members skipped, any value in the loose and raw fields,
// null where json allows it) and is !ok for anything else: a member
// given twice, a name in another case, a value of the wrong type, a
// syntax error, nesting deeper than maxSkipDepth. The caller then
// decodes the line with encoding/json, which has the last word.
// FuzzReadChunk holds the two to the same result.
func readChunk(line []byte, c *rawChunk) bool {
	r := &jsonReader{b: line}
	if r.word("null") {
		return r.end() // json leaves the chunk as it is
	}
	return r.object(chunkNames, func(i int) bool {
		switch i {
		case 0:
			return readSlice(r, &c.Choices, readChoice)
		case 1:
			return readPtr(r, &c.Usage, readUsage)
		default:
			return r.raw(&c.Error)
		}
	}) && r.end()
}

var (
	chunkNames    = []string{"choices", "usage", "error"}
	choiceNames   = []string{"index", "delta", "text", "finish_reason"}
	deltaNames    = []string{"content", "reasoning_content", "reasoning", "reasoning_details", "refusal", "tool_calls"}
	toolCallNames = []string{"index", "id", "function"}
	functionNames = []string{"name", "arguments"}
	usageNames    = []string{"prompt_tokens", "completion_tokens", "prompt_tokens_details"}
	detailsNames  = []string{"cached_tokens"}
)

func readChoice(r *jsonReader, ch *rawChoice) bool {
	return r.object(choiceNames, func(i int) bool {
		switch i {
		case 0:
			return r.loose(&ch.Index)
		case 1:
			if r.word("null") {
				return true // json leaves a struct as it is
			}
			return readDelta(r, &ch.Delta)
		case 2:
			return r.optStr(&ch.Text)
		default:
			return r.optStr(&ch.FinishReason)
		}
	})
}

func readDelta(r *jsonReader, d *rawDelta) bool {
	return r.object(deltaNames, func(i int) bool {
		switch i {
		case 0:
			return r.raw(&d.Content)
		case 1:
			return r.optStr(&d.ReasoningContent)
		case 2:
			return r.optStr(&d.Reasoning)
		case 3:
			return r.raw(&d.ReasoningDetails)
		case 4:
			return r.optStr(&d.Refusal)
		default:
			return readSlice(r, &d.ToolCalls, readToolCall)
		}
	})
}

func readToolCall(r *jsonReader, tc *rawToolCall) bool {
	return r.object(toolCallNames, func(i int) bool {
		switch i {
		case 0:
			return r.loose(&tc.Index)
		case 1:
			return r.optStr(&tc.ID)
		default:
			return readPtr(r, &tc.Function, func(r *jsonReader, f *rawFunction) bool {
				return r.object(functionNames, func(i int) bool {
					if i == 0 {
						return r.optStr(&f.Name)
					}
					return r.raw(&f.Arguments)
				})
			})
		}
	})
}

func readUsage(r *jsonReader, u *rawUsage) bool {
	return r.object(usageNames, func(i int) bool {
		switch i {
		case 0:
			return r.loose(&u.PromptTokens)
		case 1:
			return r.loose(&u.CompletionTokens)
		default:
			return readPtr(r, &u.PromptTokensDetails, func(r *jsonReader, d *rawTokenDetails) bool {
				return r.object(detailsNames, func(int) bool { return r.loose(&d.CachedTokens) })
			})
		}
	})
}

// readSlice reads an array of objects, or null (a nil slice); [] is an
// empty slice and a null element a zero one, as json makes them.
func readSlice[T any](r *jsonReader, s *[]T, elem func(*jsonReader, *T) bool) bool {
	if r.word("null") {
		return true
	}
	if !r.byte('[') {
		return false
	}
	*s = []T{}
	if r.byte(']') {
		return true
	}
	for {
		*s = append(*s, *new(T))
		if !r.word("null") && !elem(r, &(*s)[len(*s)-1]) {
			return false
		}
		if r.byte(']') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

// readPtr reads an object into a new T, or null (nil).
func readPtr[T any](r *jsonReader, p **T, read func(*jsonReader, *T) bool) bool {
	if r.word("null") {
		return true
	}
	*p = new(T)
	return read(r, *p)
}

// optStr reads a string or null (nil) into a *string field.
func (r *jsonReader) optStr(p **string) bool {
	if r.word("null") {
		return true
	}
	s, ok := r.str()
	*p = &s
	return ok
}

// raw reads any value into a json.RawMessage field: its bytes, "null"
// included, as json keeps them.
func (r *jsonReader) raw(p *json.RawMessage) bool {
	v, ok := r.value()
	*p = v
	return ok
}

// loose reads any value into a looseInt, as its UnmarshalJSON does.
func (r *jsonReader) loose(l *looseInt) bool {
	v, ok := r.value()
	if ok {
		l.parse(v)
	}
	return ok
}
