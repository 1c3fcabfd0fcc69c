package config

import "strings"

// FieldError is a problem with one config field.
type FieldError struct {
	// Path is the field path, such as spec.sidecars[0].waitBeforeExit.
	Path string
	// Message says what is wrong and, where it can, what to do.
	Message string
}

// Error formats the error as "path: message".
func (e FieldError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Errors is every problem found in a config.
type Errors []FieldError

// Error joins the problems with "; ".
func (e Errors) Error() string {
	parts := make([]string, len(e))
	for i, fe := range e {
		parts[i] = fe.Error()
	}
	return strings.Join(parts, "; ")
}

func (e *Errors) add(path, msg string) {
	*e = append(*e, FieldError{Path: path, Message: msg})
}

// orNil returns nil for no errors, so that callers can test err != nil.
func (e Errors) orNil() error {
	if len(e) == 0 {
		return nil
	}
	return e
}
