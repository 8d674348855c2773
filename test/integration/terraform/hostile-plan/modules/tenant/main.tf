variable "name" {
  type = string
}

resource "aws_ssm_parameter" "p" {
  name  = "/hostile/module/${var.name}"
  type  = "String"
  value = "v1"
  tags  = { Owner = "team" }
}
