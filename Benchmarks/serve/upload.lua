-- wrk script: POST /v1/people/pN/changes with SAMPLES new step counts a
-- request, each with its own UUID (thread id and a counter), round robin
-- over PEOPLE people. Tokens come from the file tokens.txt beside the
-- data folder (one "person token" a line), given as TOKENS.
-- With DELAY_MS, each connection waits that long between requests (a
-- fixed rate for latency runs).
local samples = tonumber(os.getenv("SAMPLES") or "1000")
local people = {}
local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")
local counter = 0
local thread_id = 0
local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_id = id
  for line in io.lines(os.getenv("TOKENS")) do
    local person, token = line:match("^(%S+)%s+(%S+)$")
    table.insert(people, { person = person, token = token })
  end
end

-- RUN (0-4095) keeps the UUIDs of two runs into one store apart.
local run = tonumber(os.getenv("RUN") or "0")
local template = '{"uuid":"%08X-%04X-4000-8%03X-%012X","type":"HKQuantityTypeIdentifierStepCount",' ..
  '"start":"2024-03-01T%02d:%02d:00Z","end":"2024-03-01T%02d:%02d:00Z","value":%d,"unit":"count"}'

function request()
  counter = counter + 1
  local p = people[(counter % #people) + 1]
  local parts = {}
  for i = 1, samples do
    local m = (counter * samples + i) % 1440
    parts[i] = template:format(thread_id, counter % 65536, run, counter * 100000 + i,
                               math.floor(m / 60), m % 60, math.floor(m / 60), m % 60, i % 500)
  end
  local body = '{"samples":[' .. table.concat(parts, ",") .. '],"deleted":[]}'
  return wrk.format("POST", "/v1/people/" .. p.person .. "/changes",
                    { ["Authorization"] = "Bearer " .. p.token, ["Content-Type"] = "application/json" }, body)
end

function delay()
  return delay_ms
end

function response(status, headers, body)
  if status ~= 200 then
    io.stderr:write("status " .. status .. ": " .. body .. "\n")
  end
end
