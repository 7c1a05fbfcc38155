package mnemo

import (
	"errors"
	"fmt"
)

// Error codes are stable, snake_case and never renamed: clients branch on
// them. Add new ones at the end.
const (
	ECONFLICT     = "conflict"       // the write conflicts with stored state
	EINTERNAL     = "internal"       // a bug or an unexpected failure; details are logged, not shown
	EINVALID      = "invalid_input"  // the request is malformed or breaks a rule
	ENOTFOUND     = "not_found"      // no such memory, key or session
	ETOOLARGE     = "too_large"      // a field or a batch is over its limit
	EUNAVAILABLE  = "unavailable"    // a dependency (store, index, provider) is down
	EUNAUTHORIZED = "unauthorized"   // no or wrong credentials
	EFORBIDDEN    = "forbidden"      // credentials do not allow this scope or action
	ERATELIMITED  = "rate_limited"   // the client sent too many requests; retry later
	EMISMATCH     = "model_mismatch" // vectors of another embedding model or dimension are stored; reindex
)

// Error is a domain error with a machine-readable code and a message that is
// safe to show to the caller.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("mnemo: %s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, "" for nil,
// and EINTERNAL for any other error.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for other errors so that internals never leak.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// WithPrefix adds a prefix to a domain error's message, keeping its code.
func WithPrefix(err error, prefix string) error {
	if e, ok := err.(*Error); ok {
		return &Error{Code: e.Code, Message: prefix + e.Message}
	}
	return err
}
