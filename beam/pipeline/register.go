package pipeline

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// Registration lets a worker binary find the DoFns by name and call them
// without reflection (the portable runners need it).
func init() {
	beam.RegisterType(reflect.TypeOf((*Task)(nil)).Elem())
	register.Function1x2(keyByShardFn)
	register.DoFn4x1[context.Context, int, func(*Task) bool, func([]byte), error](&executeFn{})
	register.DoFn3x1[context.Context, []byte, func(*[]byte) bool, error](&commitFn{})
	register.DoFn4x1[context.Context, int, func(*Task) bool, func([]byte), error](&takeFn{})
	register.DoFn3x1[context.Context, []byte, func(*[]byte) bool, error](&manifestFn{})
	register.Emitter1[[]byte]()
	register.Iter1[Task]()
	register.Iter1[[]byte]()
}
