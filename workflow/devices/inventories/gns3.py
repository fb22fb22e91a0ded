"""Devices and links of one GNS3 project, read through the GNS3 REST API (v2 or v3).

v2 servers need no auth (or HTTP basic when the server has `auth = True`); v3 servers need a
bearer token from POST /v3/access/users/login. The API version is detected from /vN/version.
A closed project is opened first: only an opened project reports console hosts and port names.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import httpx

from base.errors import InventoryError
from workflow.devices.inventories.device_types import NodeInfo, resolve_device_type
from workflow.model import Device, Link, UnusableNode
from workflow.results.targets import infer_kind

__all__ = ["GNS3Inventory", "project_names"]

UNSPECIFIED_HOSTS = frozenset({"", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"})
IMAGE_PROPERTIES = ("image", "hda_disk_image", "path", "platform", "image_name")

Json = Any


class GNS3Inventory:
    """`workflow.ports.Inventory` over one GNS3 project, chosen by name or id."""

    def __init__(
        self,
        url: str,
        *,
        project: str,
        user: str | None = None,
        password: str | None = None,
        device_types: Mapping[str, str] | None = None,
        http: httpx.AsyncClient | None = None,
        timeout: float = 10.0,
    ) -> None:
        self._url = url.rstrip("/")
        self._project = project
        self.lab = f"GNS3 project {project} on {self._url}"
        self._user = user
        self._password = password
        self._rules = dict(device_types or {})
        self._http = http
        self._timeout = timeout

    async def load(self) -> tuple[list[Device], list[Link], list[UnusableNode]]:
        async with self._client() as client:
            session = _Session(client, self._url)
            await session.detect_version()
            await session.authenticate(self._user, self._password)
            project = await session.find_project(self._project)
            if project.get("status") == "closed":
                await session.request("POST", f"/projects/{project['project_id']}/open")
            base = f"/projects/{project['project_id']}"
            nodes = await session.request("GET", f"{base}/nodes")
            links = await session.request("GET", f"{base}/links")
            templates = await session.template_names()
        server_host = urlsplit(self._url).hostname or "127.0.0.1"
        devices, unusable = nodes_to_devices(nodes, templates, self._rules, server_host)
        return devices, links_to_topology(links, nodes), unusable

    @asynccontextmanager
    async def _client(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._http is not None:
            yield self._http
            return
        async with httpx.AsyncClient(timeout=self._timeout) as client:
            yield client


class _Session:
    """One conversation with a GNS3 server: API prefix, auth and error translation."""

    def __init__(self, client: httpx.AsyncClient, url: str) -> None:
        self._client = client
        self._url = url
        self._api = "v2"
        self._auth: httpx.Auth | None = None
        self._headers: dict[str, str] = {}

    async def detect_version(self) -> None:
        for api in ("v3", "v2"):
            response = await self._send("GET", f"{self._url}/{api}/version")
            if response.status_code == 200:
                self._api = api
                return
        raise InventoryError(
            f"{self._url} does not answer like a GNS3 server (no /v3/version or /v2/version); "
            "check GNS3_URL"
        )

    async def authenticate(self, user: str | None, password: str | None) -> None:
        if self._api == "v2":
            if user and password:  # only needed when the server has `auth = True`
                self._auth = httpx.BasicAuth(user, password)
            return
        if not user or not password:
            raise InventoryError(
                f"GNS3 at {self._url} is version 3 and needs a login: set GNS3_USER and "
                "GNS3_PASSWORD"
            )
        response = await self._send(
            "POST",
            f"{self._url}/v3/access/users/login",
            data={"username": user, "password": password},
        )
        if response.status_code == 401:
            raise InventoryError(
                f"GNS3 at {self._url} refused user {user!r}: check GNS3_USER and GNS3_PASSWORD"
            )
        token = self._json(response, "POST /v3/access/users/login").get("access_token")
        self._headers = {"Authorization": f"Bearer {token}"}

    async def find_project(self, wanted: str) -> Json:
        projects = await self.request("GET", "/projects")
        for project in projects:
            if wanted in (project.get("project_id"), project.get("name")):
                return project
        names = ", ".join(sorted(repr(p.get("name")) for p in projects)) or "none"
        raise InventoryError(
            f"GNS3 at {self._url} has no project {wanted!r} (available: {names}); "
            "set GNS3_PROJECT to one of them"
        )

    async def template_names(self) -> dict[str, str]:
        """template_id -> template name; names help tell device types apart."""
        templates = await self.request("GET", "/templates")
        return {t["template_id"]: t.get("name", "") for t in templates if "template_id" in t}

    async def request(self, method: str, path: str) -> Json:
        response = await self._send(method, f"{self._url}/{self._api}{path}")
        if response.status_code in (401, 403):
            raise InventoryError(
                f"GNS3 at {self._url} denied {method} {path} ({response.status_code}): "
                "check GNS3_USER and GNS3_PASSWORD"
            )
        return self._json(response, f"{method} {path}")

    async def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return await self._client.request(
                method,
                url,
                headers=self._headers,
                auth=self._auth or httpx.USE_CLIENT_DEFAULT,
                **kwargs,
            )
        except httpx.HTTPError as exc:
            raise InventoryError(
                f"GNS3 server at {self._url} is not reachable ({type(exc).__name__}: {exc}); "
                "check GNS3_URL and that gns3server is running"
            ) from exc

    def _json(self, response: httpx.Response, what: str) -> Json:
        if response.status_code >= 400:
            raise InventoryError(
                f"GNS3 at {self._url}: {what} failed with {response.status_code}: "
                f"{_message(response)}"
            )
        try:
            return response.json()
        except ValueError as exc:
            raise InventoryError(f"GNS3 at {self._url}: {what} did not return JSON") from exc


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(body, dict):
        return str(body.get("message") or body.get("detail") or body)[:200]
    return str(body)[:200]


def node_info(node: Json, templates: Mapping[str, str]) -> NodeInfo:
    properties = node.get("properties") or {}
    images = (str(properties.get(key) or "") for key in IMAGE_PROPERTIES)
    return NodeInfo(
        name=node["name"],
        node_type=node.get("node_type") or "",
        console_type=node.get("console_type") or "none",
        template=templates.get(node.get("template_id") or "", ""),
        image=" ".join(filter(None, images)),
        symbol=node.get("symbol") or "",
        tags=tuple(str(tag) for tag in node.get("tags") or ()),
    )


def nodes_to_devices(
    nodes: list[Json], templates: Mapping[str, str], rules: Mapping[str, str], server_host: str
) -> tuple[list[Device], list[UnusableNode]]:
    devices: list[Device] = []
    unusable: list[UnusableNode] = []
    for node in nodes:
        resolved = resolve_device_type(node_info(node, templates), rules)
        if isinstance(resolved, UnusableNode):
            unusable.append(resolved)
        elif not node.get("console"):
            unusable.append(UnusableNode(node["name"], "GNS3 allocated no console port"))
        else:
            host = node.get("console_host") or ""
            looks = f"{node.get('node_type') or ''} {node.get('symbol') or ''}".strip()
            kind, source, detail = infer_kind(symbol=looks)
            devices.append(
                Device(
                    name=node["name"],
                    platform=resolved,
                    host=server_host if host in UNSPECIFIED_HOSTS else host,
                    port=int(node["console"]),
                    node_id=node.get("node_id", ""),
                    kind=kind,
                    kind_source=source,
                    kind_detail=detail,
                )
            )
    return devices, unusable


def links_to_topology(links: list[Json], nodes: list[Json]) -> list[Link]:
    by_id = {node["node_id"]: node for node in nodes}
    result: list[Link] = []
    for link in links:
        ends = link.get("nodes") or []
        if len(ends) != 2 or not all(end.get("node_id") in by_id for end in ends):
            continue  # a link to a node outside the project cannot be shown
        (a_name, a_port), (b_name, b_port) = (_end(end, by_id) for end in ends)
        result.append(
            Link(a_device=a_name, a_interface=a_port, b_device=b_name, b_interface=b_port)
        )
    return result


def _end(end: Json, by_id: Mapping[str, Json]) -> tuple[str, str]:
    node = by_id[end["node_id"]]
    adapter, port = end.get("adapter_number"), end.get("port_number")
    for candidate in node.get("ports") or ():
        if candidate.get("adapter_number") == adapter and candidate.get("port_number") == port:
            return node["name"], candidate["name"]
    label = (end.get("label") or {}).get("text")
    return node["name"], label or f"{adapter}/{port}"


async def project_names(
    url: str,
    *,
    user: str | None = None,
    password: str | None = None,
    http: httpx.AsyncClient | None = None,
) -> list[str]:
    """The names of the projects a GNS3 server hosts (a pod group's labs are found so)."""
    async with AsyncExitStack() as stack:
        client = http
        if client is None:
            client = await stack.enter_async_context(httpx.AsyncClient(timeout=10.0))
        session = _Session(client, url.rstrip("/"))
        await session.detect_version()
        await session.authenticate(user, password)
        projects = await session.request("GET", "/projects")
    return sorted(str(p.get("name")) for p in projects if p.get("name"))
