package report

// kindTexts are each kind's short description (a title) and its full
// description: docs/results.md's table row.
var kindTexts = map[Kind][2]string{
	KindEdit:           {"A change the function makes", "a change the function made, or with `action: validate` would make"},
	KindRecognition:    {"A sidecar of the catalog recognised", "a sidecar of the catalog recognised in a workload, or what its recognition means for the edit"},
	KindFieldValue:     {"A field value of the wrong type or out of range", "a field the function reads or writes that holds a value of the wrong type or out of range, an annotation of the function's included"},
	KindInput:          {"An item that cannot be read as it is", "an item that cannot be read as it is: a duplicate key, aliases that expand past the bounds, a List that cannot be edited"},
	KindPlacement:      {"A sidecar that is not where the function can order it", "a sidecar that is not where the function can order it: absent with `ifAbsent: fail`, an init container in ordered mode, a pod left as it is"},
	KindHook:           {"A lifecycle hook that cannot be written or kept as asked", "a lifecycle hook the function cannot write or keep as asked: one it did not write, a preStop the image cannot run, a sleep longer than the grace period"},
	KindReadiness:      {"A sidecar whose readiness cannot be waited for", "a sidecar whose readiness the function cannot wait for as asked: its health endpoints, probes and wait commands"},
	KindGracePeriod:    {"A grace period that does not cover the sidecars' exit", "a grace period that does not cover the sidecars' exit, or that kubelet cannot count"},
	KindBudget:         {"A break of the termination budget", "a break of the termination budget: a container or a load balancer that outlives what the pod's shutdown allows"},
	KindNodeDeadline:   {"A node deadline that cuts a pod's shutdown", "a node deadline (a spot notice, a Karpenter NodePool's `terminationGracePeriod`, the cluster-autoscaler's `--max-graceful-termination-sec`, kubelet's graceful node shutdown) that ends the shutdown of a pod that may land on the node before its preStops, sidecars or load balancers are done"},
	KindMeshAnnotation: {"A mesh annotation against the function's mode", "a mesh annotation that works against the function's mode, or that it cannot read"},
	KindConfig:         {"A field of the functionConfig that is not valid", "a field of the functionConfig that is not valid"},
	KindKubelet:        {"A field a kubelet of the input's Nodes does not serve", "a field a workload uses (or the function would write) that a kubelet of the input's Nodes does not serve, naming the Nodes; what the run read of the Nodes' kubelets (see [audits](configuration.md#kubernetesversion-and-the-nodes-kubelets))"},
	KindController:     {"An object checked through its controller", "an object of the input that another object controls (a ReplicaSet, a Job of a CronJob, a Pod): checked through its controller, not on its own"},
	KindSummary:        {"The run's summary", "the run's closing count of what it did"},
}

// Title is the kind's short description, a sentence fragment for a rule's
// name.
func (k Kind) Title() string { return kindTexts[k][0] }

// Description is the kind's full description, as docs/results.md lists
// it (Markdown: `code` spans).
func (k Kind) Description() string { return kindTexts[k][1] }
