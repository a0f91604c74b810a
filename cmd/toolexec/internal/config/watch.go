package config

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Watched is a file or directory a config was built from, with its stamp
// (Stamp) as it was read.
type Watched struct {
	Path string
	Sum  [sha256.Size]byte
}

// Watched returns the files and directories the config was read from
// besides its tools file (a Hyperterse project's root file, adapter and
// tool files, and the directories they are found in), each with its
// stamp as it was read: a change to any of them is a change of the
// config. The scripts' files are not among them: they are known once the
// scripts are bundled.
func (c *Config) Watched() []Watched {
	if c == nil {
		return nil
	}
	return append([]Watched(nil), c.watched...)
}

// MaxStampedBytes is the largest file Stamp hashes; a larger one is
// stamped by its size and modification time.
const MaxStampedBytes = 16 << 20

// maxStampedEntries bounds the entries Stamp lists under a directory.
const maxStampedEntries = 10000

// Stamp identifies what is at path now: a file by the SHA-256 of its
// contents (StampData), a directory by the names of the files and
// directories under it (so that one added or removed is seen: what is in
// them is stamped on its own), anything that cannot be read by a stamp of
// its own.
func Stamp(path string) [sha256.Size]byte {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return sha256.Sum256([]byte("missing\x00" + path))
	case st.IsDir():
		h := sha256.New()
		n := 0
		_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > maxStampedEntries {
				return filepath.SkipAll
			}
			_, _ = h.Write([]byte(p + "\x00"))
			return nil
		})
		var out [sha256.Size]byte
		copy(out[:], h.Sum(nil))
		return out
	case st.Size() > MaxStampedBytes:
		return sha256.Sum256([]byte("large\x00" + strconv.FormatInt(st.Size(), 10) + "\x00" + st.ModTime().String()))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return sha256.Sum256([]byte("unreadable\x00" + path))
	}
	return StampData(data)
}

// StampData is the stamp of a file whose contents are data, as Stamp
// would read it.
func StampData(data []byte) [sha256.Size]byte {
	if len(data) > MaxStampedBytes {
		return sha256.Sum256([]byte("large"))
	}
	return sha256.Sum256(data)
}

// watch records path, read now with data (nil: a directory), among what
// the config was read from.
func (c *Config) watch(path string, data []byte) {
	w := Watched{Path: path}
	if data == nil {
		w.Sum = Stamp(path)
	} else {
		w.Sum = StampData(data)
	}
	c.watched = append(c.watched, w)
}
