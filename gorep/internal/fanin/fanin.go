// Package fanin receives what n producer goroutines send until all of them are done,
// in the three ways S10 names, so that gorep and the lab's fan-in benchmark (bench/fanin)
// run the same code:
//
//   - SelectDone: every producer sends on one shared channel and, when finished, on a
//     done channel; the receiver's select loop counts the done signals;
//   - Forward: every producer has its own channel, which it closes; one goroutine per
//     channel forwards into a merged channel, and a WaitGroup closes that when all are;
//   - Reflect: every producer has its own channel; the receiver reflect.Selects over
//     those still open.
package fanin

import (
	"fmt"
	"reflect"
	"sync"
)

// Way of fanning in.
type Way string

const (
	SelectDone Way = "select-done"
	Forward    Way = "forward-waitgroup"
	Reflect    Way = "reflect-select"
)

// Ways, in the order they are reported.
var Ways = []Way{SelectDone, Forward, Reflect}

// ParseWay reads a way's name.
func ParseWay(s string) (Way, error) {
	for _, w := range Ways {
		if string(w) == s {
			return w, nil
		}
	}
	return "", fmt.Errorf("no fan-in way %q (ways: %v)", s, Ways)
}

// Collect starts n producers, produce(i, send) for i in 0..n-1, and calls receive in the
// calling goroutine for every value sent, until every producer has returned and every
// value has been received. buffer is the capacity of each channel.
func Collect[T any](way Way, n, buffer int, produce func(i int, send func(T)), receive func(T)) {
	switch way {
	case SelectDone:
		selectDone(n, buffer, produce, receive)
	case Forward:
		forward(n, buffer, produce, receive)
	case Reflect:
		reflectSelect(n, buffer, produce, receive)
	default:
		panic("fanin: unknown way " + string(way))
	}
}

func selectDone[T any](n, buffer int, produce func(int, func(T)), receive func(T)) {
	data := make(chan T, buffer)
	done := make(chan struct{})
	for i := range n {
		go func() {
			produce(i, func(v T) { data <- v })
			done <- struct{}{}
		}()
	}
	for remaining := n; remaining > 0; {
		select {
		case v := <-data:
			receive(v)
		case <-done:
			remaining--
		}
	}
	for { // what finished producers left in the buffer
		select {
		case v := <-data:
			receive(v)
		default:
			return
		}
	}
}

func producers[T any](n, buffer int, produce func(int, func(T))) []chan T {
	chans := make([]chan T, n)
	for i := range chans {
		chans[i] = make(chan T, buffer)
		go func(c chan T) {
			defer close(c)
			produce(i, func(v T) { c <- v })
		}(chans[i])
	}
	return chans
}

func forward[T any](n, buffer int, produce func(int, func(T)), receive func(T)) {
	merged := make(chan T, buffer)
	var wg sync.WaitGroup
	for _, c := range producers(n, buffer, produce) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range c {
				merged <- v
			}
		}()
	}
	go func() {
		wg.Wait()
		close(merged)
	}()
	for v := range merged {
		receive(v)
	}
}

func reflectSelect[T any](n, buffer int, produce func(int, func(T)), receive func(T)) {
	chans := producers(n, buffer, produce)
	cases := make([]reflect.SelectCase, len(chans))
	for i, c := range chans {
		cases[i] = reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)}
	}
	for len(cases) > 0 {
		i, v, ok := reflect.Select(cases)
		if !ok {
			cases[i] = cases[len(cases)-1]
			cases = cases[:len(cases)-1]
			continue
		}
		receive(v.Interface().(T))
	}
}
