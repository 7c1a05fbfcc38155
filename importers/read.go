package importers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-dev/mnemo"
)

// Read reads a whole input of format f and returns what it holds, or a
// *SyntaxError naming the first malformed line or offset: nothing of a
// malformed input is returned (IMP-3). name, the file's name without its
// extension, stands for the session id of a session file without one.
func Read(f Format, name string, r io.Reader) (*History, error) {
	h := &History{}
	addConv := func(c Conversation) error {
		h.Conversations = append(h.Conversations, c)
		return nil
	}
	var err error
	switch f {
	case ChatGPT:
		err = ReadChatGPT(r, addConv)
	case Claude:
		err = ReadClaude(r, addConv)
	case ClaudeCode:
		err = ReadClaudeCode(r, name, addConv)
	case Codex:
		err = ReadCodex(r, name, addConv)
	case MCPMemory:
		err = ReadMCPMemory(r, func(e Entity) error {
			h.Entities = append(h.Entities, e)
			return nil
		}, func(rel Relation) error {
			h.Relations = append(h.Relations, rel)
			return nil
		})
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return nil, err
	}
	return h, nil
}

// readArray streams a JSON array, handing each element, checked for depth
// (API-21), to each; a malformed element fails at its byte offset.
func readArray(r io.Reader, each func(raw json.RawMessage) error) error {
	dec := json.NewDecoder(r)
	fail := func(msg string, err error) error {
		return &SyntaxError{Offset: dec.InputOffset(), Msg: msg, Err: err}
	}
	tok, err := dec.Token()
	if err != nil {
		return fail(jsonMessage(err, "the file is not JSON"), err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fail("the file must be a JSON array of conversations", nil)
	}
	for dec.More() {
		at := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fail(jsonMessage(err, "malformed JSON"), err)
		}
		if err := mnemo.CheckRequestDepth("the element", raw); err != nil {
			return &SyntaxError{Offset: at, Msg: mnemo.ErrorMessage(err)}
		}
		if err := each(raw); err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				return err
			}
			return &SyntaxError{Offset: at, Msg: err.Error()}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(jsonMessage(err, "the array is not closed"), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("more after the array", nil)
	}
	return nil
}

// readLines streams a JSON Lines file, handing each non-blank line,
// checked for length and depth, to each with its number.
func readLines(r io.Reader, each func(line int, raw []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for line := 1; ; line++ {
		buf = buf[:0]
		var err error
		for {
			var frag []byte
			frag, err = br.ReadSlice('\n')
			buf = append(buf, frag...)
			if len(buf) > MaxLine {
				return &SyntaxError{Line: line, Msg: fmt.Sprintf("the line is longer than %d bytes", MaxLine)}
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return &SyntaxError{Line: line, Msg: err.Error(), Err: err}
		}
		if b := bytes.TrimSpace(buf); len(b) > 0 {
			if err := mnemo.CheckRequestDepth("the line", b); err != nil {
				return &SyntaxError{Line: line, Msg: mnemo.ErrorMessage(err)}
			}
			if !json.Valid(b) {
				return &SyntaxError{Line: line, Msg: "malformed JSON"}
			}
			if err := each(line, b); err != nil {
				var se *SyntaxError
				if errors.As(err, &se) {
					return err
				}
				return &SyntaxError{Line: line, Msg: err.Error()}
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// jsonMessage says what a decoder's error means, without Go's type names.
func jsonMessage(err error, what string) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the file ends early"
	case errors.As(err, &te):
		return fmt.Sprintf("%s holds a JSON %s, not the %s expected", fieldName(te.Field), te.Value, te.Type.Kind())
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return what + ": " + se.Error()
	}
	return what + ": " + err.Error()
}

func fieldName(f string) string {
	if f == "" {
		return "the value"
	}
	return f
}

// decode unmarshals one element or line into v, in the words of jsonMessage.
func decode(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return errors.New(jsonMessage(err, "malformed JSON"))
	}
	return nil
}

// ReadPath reads the file at path, or, when path is a directory, every file
// of format f under it (by name: conversations.json, *.jsonl, rollout-*.jsonl,
// memory.json), in lexical order, into one History. A malformed file fails
// the whole read with a *SyntaxError naming it (IMP-3). files is how many
// files were read.
func ReadPath(f Format, path string) (h *History, files int, err error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return nil, 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !st.IsDir() {
		h, err := readFile(f, path)
		return h, 1, err
	}
	h = &History{}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !f.fileMatches(d.Name()) {
			return nil
		}
		one, err := readFile(f, p)
		if err != nil {
			return err
		}
		files++
		h.Conversations = append(h.Conversations, one.Conversations...)
		h.Entities = append(h.Entities, one.Entities...)
		h.Relations = append(h.Relations, one.Relations...)
		return nil
	})
	if err != nil {
		return nil, files, err
	}
	if files == 0 {
		return nil, 0, mnemo.Errorf(mnemo.EINVALID, "%s holds no %s files (%s)", path, f, f.fileHint())
	}
	return h, files, nil
}

func readFile(f Format, path string) (*History, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	h, err := Read(f, name, fh)
	var se *SyntaxError
	if errors.As(err, &se) {
		se.File = path
	}
	return h, err
}

// fileHint names the files a directory walk reads for f.
func (f Format) fileHint() string {
	switch f {
	case ChatGPT, Claude:
		return "conversations.json"
	case Codex:
		return "rollout-*.jsonl"
	case MCPMemory:
		return "*.json, *.jsonl"
	}
	return "*.jsonl"
}
