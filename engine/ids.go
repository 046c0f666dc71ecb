package engine

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/RoaringBitmap/roaring/v2"
)

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func bitmapOf(ids []uint32) *roaring.Bitmap { return roaring.BitmapOf(ids...) }
