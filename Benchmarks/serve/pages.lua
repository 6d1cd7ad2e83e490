-- wrk script: GET pages of one person's changes, cycling through the
-- anchors in the file PAGES (one a line; "none" for the first page), each
-- page LIMIT samples, with TOKEN.
local anchors = {}
local i = 0

function init(args)
  for line in io.lines(os.getenv("PAGES")) do table.insert(anchors, line) end
end

function request()
  i = i + 1
  local anchor = anchors[(i % #anchors) + 1]
  return wrk.format("GET", "/v1/people/" .. os.getenv("PERSON") .. "/changes?limit=" .. os.getenv("LIMIT") ..
                    "&anchor=" .. anchor:gsub("+", "%%2B"):gsub("/", "%%2F"):gsub("=", "%%3D"),
                    { ["Authorization"] = "Bearer " .. os.getenv("TOKEN") })
end

function response(status, headers, body)
  if status ~= 200 then io.stderr:write("status " .. status .. "\n") end
end
