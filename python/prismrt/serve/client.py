"""A small HTTP client for prismrt.serve (standard library only, no Ray).

    client = Client("http://127.0.0.1:8000")
    outputs = client.infer({"input": x})            # {output name: array}, sent as .npz
    client.metadata(), client.health()

One Client holds one keep-alive connection: use one per thread.
"""
import http.client
import json
import urllib.parse

from ._codec import JSON_TYPE, NPY_TYPES, NPZ_TYPES, decode_response, encode_npy, encode_npz


class HttpError(Exception):
    def __init__(self, status, message):
        super().__init__("HTTP %d: %s" % (status, message))
        self.status = status
        self.message = message


class Client:
    def __init__(self, url, timeout=120.0):
        parts = urllib.parse.urlsplit(url)
        self._host, self._port = parts.hostname, parts.port or 80
        self._prefix = parts.path.rstrip("/")
        self._timeout = timeout
        self._connection = None

    def close(self):
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def request(self, method, path, body=None, headers=None):
        """(status, content type, body bytes); reconnects once if a kept-alive connection was
        closed by the server."""
        for attempt in (0, 1):
            if self._connection is None:
                self._connection = http.client.HTTPConnection(self._host, self._port,
                                                              timeout=self._timeout)
            try:
                self._connection.request(method, self._prefix + path, body=body,
                                         headers=headers or {})
                response = self._connection.getresponse()
                data = response.read()
                return response.status, response.getheader("content-type", ""), data
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if attempt:
                    raise
            except BaseException:
                self.close()  # the connection is in an unknown state: a new one next time
                raise
        raise AssertionError("unreachable")

    def post(self, body, content_type, path="/infer", accept=None, query=None):
        if query:
            path += "?" + urllib.parse.urlencode(query)
        headers = {"Content-Type": content_type}
        if accept:
            headers["Accept"] = accept
        return self.request("POST", path, body, headers)

    def infer(self, feeds, outputs=None, body="npz"):
        """{output name: array}; body: 'npz', 'npy' (one input) or 'json'. Raises HttpError."""
        query = {"outputs": ",".join(outputs)} if outputs else None
        if body == "npz":
            status, ctype, data = self.post(encode_npz(feeds), NPZ_TYPES[0], query=query,
                                            accept=NPZ_TYPES[0])
        elif body == "npy":
            ((name, array),) = feeds.items()
            query = dict(query or {}, input=name)
            status, ctype, data = self.post(encode_npy(array), NPY_TYPES[0], query=query,
                                            accept=NPZ_TYPES[0])
        else:
            document = {"inputs": {n: v.tolist() for n, v in feeds.items()}}
            if outputs:
                document["outputs"] = list(outputs)
            status, ctype, data = self.post(json.dumps(document).encode(), JSON_TYPE)
        if status != 200:
            raise HttpError(status, _error_text(data))
        return decode_response(data, ctype)

    def metadata(self):
        return self._get_json("/metadata")

    def health(self):
        return self._get_json("/health")

    def _get_json(self, path):
        status, _, data = self.request("GET", path)
        if status != 200:
            raise HttpError(status, _error_text(data))
        return json.loads(data)


def _error_text(data):
    try:
        return json.loads(data)["error"]
    except (ValueError, KeyError, TypeError):
        return data[:500].decode("utf-8", "replace")
