package parallel

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
)

func TestMapKeepsOrder(t *testing.T) {
	var got []int
	err := Map(1000, 8, func(i int) (int, error) { return i * i, nil }, func(i, v int) error {
		if v != i*i || i != len(got) {
			return fmt.Errorf("emit(%d, %d) after %d values", i, v, len(got))
		}
		got = append(got, v)
		return nil
	})
	if err != nil || len(got) != 1000 {
		t.Fatalf("Map = %v after %d values", err, len(got))
	}
}

func TestMapStops(t *testing.T) {
	stop := errors.New("stop")
	emitted := 0
	err := Map(100000, 4, func(i int) (int, error) { return i, nil }, func(i, v int) error {
		emitted++
		if i == 10 {
			return stop
		}
		return nil
	})
	if err != stop || emitted != 11 {
		t.Errorf("Map = %v after %d emits, want stop after 11", err, emitted)
	}
	emitted = 0
	recovered := func() (p any) {
		defer func() { p = recover() }()
		Map(100, 4, func(i int) (int, error) {
			if i == 50 {
				panic("boom")
			}
			return i, nil
		}, func(int, int) error { emitted++; return nil })
		return nil
	}()
	if wp, ok := recovered.(*WorkPanic); !ok || wp.Item != 50 || wp.Value != "boom" || !strings.Contains(wp.String(), "item 50: panic: boom") || emitted != 50 {
		t.Errorf("Map with a panic in work: recovered %v after %d emits, want a *WorkPanic for item 50 after 50", recovered, emitted)
	}
	if err := Map(0, 4, func(i int) (int, error) { return i, nil }, func(int, int) error { return nil }); err != nil {
		t.Errorf("Map of nothing = %v", err)
	}
}

// TestMapEndsItsGoroutines: however Map ends (a panic or an error of emit,
// an error or a panic of work), every goroutine it started has ended when
// it returns: synctest.Test fails on goroutines of its bubble left blocked.
// A panic of emit reaches the caller unchanged, one of work as a
// *WorkPanic.
func TestMapEndsItsGoroutines(t *testing.T) {
	failure := errors.New("failure")
	for _, tc := range []struct {
		name  string
		work  func(i int) (int, error)
		emit  func(i, v int) error
		err   string
		panic any
	}{{
		name:  "emit panics",
		work:  func(i int) (int, error) { return i, nil },
		emit:  func(i, v int) error { panic(failure) },
		panic: failure,
	}, {
		name: "emit panics later",
		work: func(i int) (int, error) { return i, nil },
		emit: func(i, v int) error {
			if i == 100 {
				panic("late")
			}
			return nil
		},
		panic: "late",
	}, {
		name: "emit fails",
		work: func(i int) (int, error) { return i, nil },
		emit: func(i, v int) error { return failure },
		err:  "failure",
	}, {
		name: "work fails",
		work: func(i int) (int, error) {
			if i == 3 {
				return 0, failure
			}
			return i, nil
		},
		emit: func(i, v int) error { return nil },
		err:  "failure",
	}, {
		name: "work panics",
		work: func(i int) (int, error) {
			if i == 3 {
				panic("boom")
			}
			return i, nil
		},
		emit:  func(i, v int) error { return nil },
		panic: "boom",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var err error
				recovered := func() (p any) {
					defer func() { p = recover() }()
					err = Map(10000, 4, tc.work, tc.emit)
					return nil
				}()
				if wp, ok := recovered.(*WorkPanic); ok {
					recovered = wp.Value
				}
				if recovered != tc.panic {
					t.Errorf("Map panicked with %v, want %v", recovered, tc.panic)
				}
				if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
					t.Errorf("Map = %v, want an error with %q", err, tc.err)
				}
			})
		})
	}
}
