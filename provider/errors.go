package provider

import "errors"

// ErrProvider is matched (errors.Is) by every error an adapter returns
// because the server or the connection failed, as opposed to the caller's
// context ending.
var ErrProvider = errors.New("model provider failed")

// ErrTruncated is matched by an *Error for a stream that ended before the
// reply was complete.
var ErrTruncated = errors.New("stream ended before the reply was complete")

// ErrIdleTimeout is matched by an *Error for a server that sent nothing
// for the adapter's idle timeout.
var ErrIdleTimeout = errors.New("server sent nothing within the idle timeout")

// Error is a failed request or stream, with a message meant for the user.
type Error struct {
	BaseURL string
	Model   string
	// StatusCode is the HTTP status, 0 when the failure is not one.
	StatusCode int
	// Msg says what failed and what to do about it.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap makes errors.Is match ErrProvider and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrProvider}
	}
	return []error{ErrProvider, e.Err}
}
