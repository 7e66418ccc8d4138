# A loop whose YARV instructions are obvious from its source (the seed's hot list starts
# with opt_aref, opt_minus, opt_newarray_min): an array read, a subtraction, and the
# minimum of a literal array, which Ruby 3.1 compiles to opt_newarray_min.
a = [3, 1, 4, 1, 5, 9, 2, 6]
n = Integer(ARGV[0] || 2_000_000)
i = 0
s = 0
while i < n
  s += a[i & 7]
  s -= [i, 5, 7].min
  i += 1
end
p s
